// SPDX-License-Identifier: GPL-2.0
/* cmd_test.c - `rxectl test [DEVICE] [--json]`: the loopback verbs self-test on one device. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/if.h>

#include "diag.h"
#include "log.h"
#include "output.h"
#include "selftest.h"

#define SELFTEST_TIMEOUT_MS 5000	/* per completion; generous for emulated CPUs */

static const char *st_str(enum st_status s)
{
	return s == ST_PASS ? "pass" : s == ST_FAIL ? "fail" : "skip";
}

/* Why the port is not ACTIVE, and what to do: one sentence. */
static int port_down(struct rxectl *ctx, const struct rxe_dev *d, const struct rxe_details *det)
{
	const char *nd = d->netdev;

	if (!det->have_netdev)
		return log_error(RXECTL_FAIL, "%s port %u is %s and its netdev is gone, so nothing can "
				 "be tested; recreate it with `rxectl down %s` and `rxectl up NETDEV`.",
				 d->name, d->port, rdma_port_state_str(d->state), d->name);
	if (!(det->netdev.flags & IFF_UP))
		return log_error(RXECTL_FAIL, "%s port %u is %s because %s is down, so nothing can be "
				 "tested; bring it up with `ip link set %s up`.", d->name, d->port,
				 rdma_port_state_str(d->state), nd, nd);
	return log_error(RXECTL_FAIL, "%s port %u is %s (%s has %s), so nothing can be tested; "
			 "`rxectl doctor %s` says why.", d->name, d->port,
			 rdma_port_state_str(d->state), nd,
			 det->netdev.carrier ? "carrier" : "no carrier", nd);
}

static void print_head(struct rxectl *ctx, const struct rxe_dev *d, const struct rxe_details *det)
{
	out_str(ctx->out, "device", "testing %s", d->name);
	out_text(ctx->out, " port %u%s%s", d->port, d->netdev[0] ? " on " : "", d->netdev);
	if (det->gid_index >= 0) {
		out_int(ctx->out, "gid_index", ", GID index %lld", det->gid_index);
		for (size_t i = 0; i < det->port.n_gids; i++)
			if ((int)det->port.gids[i].index == det->gid_index)
				out_text(ctx->out, " (%s, %s)", gid_type_str(det->port.gids[i].type),
					 det->port.gids[i].ip);
	} else
		out_null(ctx->out, "gid_index", NULL);
}

int cmd_test(struct rxectl *ctx, int argc, char **argv)
{
	struct rxe_details det;
	struct selftest st;
	struct rxe_dev dev;
	size_t passed = 0;
	struct opts o;
	int opt, ret, err;

	opts_init(&o, ctx, "test", NULL, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
	}
	if (o.npos > 1)
		return rxectl_usage_error("test", "test takes at most one device, but got '%s' too.",
					  argv[2]);
	ret = diag_pick_device(ctx, "test", o.npos ? argv[1] : NULL, &dev);
	if (ret != RXECTL_OK)
		return ret;
	rxe_describe(ctx, &dev, &det);

	out_obj_begin(ctx->out, NULL);
	print_head(ctx, &dev, &det);
	if (dev.state != RDMA_PORT_ACTIVE || !det.have_verbs || det.gid_index < 0) {
		out_text(ctx->out, "\n");
		out_arr_begin(ctx->out, "results");
		out_arr_end(ctx->out);
		out_str(ctx->out, "result", "result: %s\n", "fail");
		out_obj_end(ctx->out);
		if (dev.state != RDMA_PORT_ACTIVE)
			ret = port_down(ctx, &dev, &det);
		else if (!det.have_verbs) {
			char why[400];

			char uv[256], node[300];

			selftest_probe_open(dev.name, why, sizeof(why));
			if (diag_find_uverbs(dev.name, uv, sizeof(uv))) {
				snprintf(node, sizeof(node), "/dev/infiniband/%s", uv);
				if (faccessat(AT_FDCWD, node, R_OK | W_OK, AT_EACCESS) < 0)
					snprintf(why, sizeof(why), "you (uid %u) may not open %s",
						 (unsigned int)geteuid(), node);
			}
			ret = log_error(RXECTL_FAIL, "libibverbs cannot open %s: %s; `rxectl doctor %s` "
					"checks ib_uverbs, rdma-core's provider and the permissions of "
					"/dev/infiniband.", dev.name, why, dev.name);
		}
		else
			ret = log_error(RXECTL_FAIL, "%s has no RoCE v2 GID for an address of %s, so the "
					"QPs cannot be connected; add one with `ip addr add "
					"ADDRESS/PREFIX dev %s`.", dev.name, dev.netdev, dev.netdev);
		rxe_details_free(&det);
		return ret;
	}

	err = selftest_run(dev.name, dev.port, det.gid_index, SELFTEST_TIMEOUT_MS, &st);
	if (err == 0)
		out_text(ctx->out, ", path MTU %u, %d-byte messages:\n", st.path_mtu,
			 SELFTEST_MSG_LEN);
	else
		out_text(ctx->out, "\n");
	out_arr_begin(ctx->out, "results");
	for (size_t i = 0; i < st.n; i++) {
		const struct st_result *r = &st.r[i];

		passed += r->status == ST_PASS;
		out_obj_begin(ctx->out, NULL);
		out_str(ctx->out, "op", "  %-15s", r->op);
		out_str(ctx->out, "status", " %-5s", st_str(r->status));
		if (r->status == ST_SKIP)
			out_null(ctx->out, "usec", "           ");
		else
			out_uint(ctx->out, "usec", " %6llu usec", r->usec);
		out_text(ctx->out, "%s%s%s\n", r->detail[0] ? "  (" : "", r->detail,
			 r->detail[0] ? ")" : "");
		out_obj_end(ctx->out);
	}
	out_arr_end(ctx->out);
	ret = err == 0 && passed == st.n ? RXECTL_OK : RXECTL_FAIL;
	out_str(ctx->out, "result", "result: %s", ret == RXECTL_OK ? "pass" : "fail");
	out_text(ctx->out, " (%zu of %zu operations passed)\n", passed, st.n);
	out_obj_end(ctx->out);
	if (err)
		log_error(0, "the self-test could not start: %s.", st.error);
	else if (ret != RXECTL_OK)
		for (size_t i = 0; i < st.n; i++)
			if (st.r[i].status == ST_FAIL)
				log_error(0, "%s on %s failed: %s.", st.r[i].op, dev.name, st.r[i].detail);
	rxe_details_free(&det);
	return ret;
}
