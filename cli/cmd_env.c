// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_env.c - `rxectl env [DEVICE|NETDEV] [--for FRAMEWORK] [--json|--shell]`: the device, port,
 * GID index, netdev and MTU an RDMA framework must be told, as its own variables and command
 * lines; `rxectl env --ibdev2netdev`: the device-to-netdev map in ibdev2netdev's format.
 */
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "diag.h"
#include "env.h"
#include "log.h"
#include "output.h"
#include "rxe.h"

#define ENV_MAX_ITEMS 16

static void print_shell_var(struct output *o, const char *name, const char *value)
{
	char q[512];

	if (env_shell_quote(value, q, sizeof(q)))
		out_text(o, "export %s=%s\n", name, q);
}

/* --shell: text only (the command refuses --json with it), through output.c's escaping. */
static void print_shell(struct output *o, const struct env_target *t, const bool *want)
{
	char num[16];

	out_text(o, "# rxectl env: %s port %u on %s, RoCE v2 GID index %d (%s)\n", t->device, t->port,
	       t->netdev, t->gid_index, t->ip);
	print_shell_var(o, "RXE_DEVICE", t->device);
	snprintf(num, sizeof(num), "%u", t->port);
	print_shell_var(o, "RXE_PORT", num);
	print_shell_var(o, "RXE_NETDEV", t->netdev);
	snprintf(num, sizeof(num), "%d", t->gid_index);
	print_shell_var(o, "RXE_GID_INDEX", num);
	print_shell_var(o, "RXE_GID", t->gid);
	print_shell_var(o, "RXE_IP", t->ip);
	if (t->active_mtu) {
		snprintf(num, sizeof(num), "%u", t->active_mtu);
		print_shell_var(o, "RXE_ACTIVE_MTU", num);
	}
	for (int fw = 0; fw < ENV_FW_COUNT; fw++) {
		struct env_item it[ENV_MAX_ITEMS];
		size_t n;

		if (!want[fw])
			continue;
		n = env_items(t, fw, it, ENV_MAX_ITEMS);
		out_text(o, "# %s: %s\n", env_framework_name(fw), env_framework_title(fw));
		for (size_t i = 0; i < n; i++) {
			if (it[i].kind == ENV_VAR || it[i].kind == ENV_ARGS)
				print_shell_var(o, it[i].name, it[i].value);
			else if (it[i].kind == ENV_CMD)
				out_text(o, "#   %s: %s\n", it[i].name, it[i].value);
			else
				out_text(o, "#   %s = %s\n", it[i].name, it[i].value);
		}
	}
}

static void print_doc(struct rxectl *ctx, const struct env_target *t, const bool *want)
{
	static const char *const groups[] = { "env", "args", "commands", "conf" };
	static const char *const heads[] = { "  environment:\n", "  arguments (rxectl's own shell "
		"variables, `--shell`):\n", "  commands (SERVER: the peer's address):\n",
		"  configuration file lines:\n" };
	struct output *o = ctx->out;

	out_obj_begin(o, NULL);
	out_str(o, "device", "%s", t->device);
	out_uint(o, "port", " port %llu", t->port);
	out_str(o, "netdev", " on %s", t->netdev);
	out_int(o, "gid_index", ": RoCE v2 GID index %lld", t->gid_index);
	out_str(o, "gid", " (%s", t->gid);
	out_str(o, "ip", ", %s)", t->ip);
	out_str(o, "ip_family", NULL, t->ip_family == AF_INET ? "ipv4" : "ipv6");
	if (t->active_mtu)
		out_uint(o, "active_mtu", ", active MTU %llu\n", t->active_mtu);
	else
		out_null(o, "active_mtu", ", active MTU unknown\n");
	out_obj_begin(o, "frameworks");
	for (int fw = 0; fw < ENV_FW_COUNT; fw++) {
		struct env_item it[ENV_MAX_ITEMS];
		size_t n;

		if (!want[fw])
			continue;
		n = env_items(t, fw, it, ENV_MAX_ITEMS);
		out_text(o, "\n%s:\n", env_framework_title(fw));
		out_obj_begin(o, env_framework_name(fw));
		for (int k = ENV_VAR; k <= ENV_CONF; k++) {
			bool any = false;

			for (size_t i = 0; i < n; i++)
				any |= it[i].kind == (enum env_kind)k;
			if (!any)
				continue;
			out_text(o, "%s", heads[k]);
			out_obj_begin(o, groups[k]);
			for (size_t i = 0; i < n; i++) {
				if (it[i].kind != (enum env_kind)k)
					continue;
				if (k == ENV_VAR || k == ENV_ARGS)
					out_text(o, "    %s=", it[i].name);
				else if (k == ENV_CMD)
					out_text(o, "    %-10s ", it[i].name);
				else
					out_text(o, "    %s = ", it[i].name);
				out_str(o, it[i].name, "%s\n", it[i].value);
			}
			out_obj_end(o);
		}
		out_obj_end(o);
	}
	out_obj_end(o);
	out_obj_end(o);
}

/* `ibdev2netdev`'s lines: "rxe0 port 1 ==> eth0 (Up)", every RDMA device's every port. */
static int ibdev2netdev(struct rxectl *ctx)
{
	struct rdma_port_info *ports = NULL;
	struct rdma_nl *nl = ctx_rdma_nl(ctx);
	struct output *o = ctx->out;
	size_t n = 0;

	if (!nl)
		return RXECTL_FAIL;
	if (rdma_nl_list_ports(nl, &ports, &n) < 0) {
		free(ports);
		return log_error(RXECTL_FAIL, "listing the RDMA ports over RDMA netlink failed; "
				 "`rxectl doctor` says why.");
	}
	out_obj_begin(o, NULL);
	out_arr_begin(o, "ports");
	for (size_t i = 0; i < n; i++) {
		const struct rdma_port_info *p = &ports[i];
		struct netdev_ctx *nd = p->has_ndev ? ctx_netdev(ctx) : NULL;
		struct netdev_info ni;
		bool up = false;

		/* ibdev2netdev says Up when the netdev's operstate is up; a netdev without
		 * operstate tracking (dummy, "unknown") counts as up when it is up with carrier */
		if (nd && netdev_get_by_index(nd, (int)p->ndev_index, &ni) == 0)
			up = !strcmp(ni.operstate, "up") ||
			     (!strcmp(ni.operstate, "unknown") && (ni.flags & IFF_UP) && ni.carrier);
		out_obj_begin(o, NULL);
		out_str(o, "device", "%s", p->dev_name);
		out_uint(o, "port", " port %llu ==> ", p->port);
		if (p->has_ndev)
			out_str(o, "netdev", "%s", p->ndev_name);
		else
			out_null(o, "netdev", "N/A");
		out_str(o, "state", " (%s)\n", up ? "Up" : "Down");
		out_obj_end(o);
	}
	out_arr_end(o);
	out_obj_end(o);
	free(ports);
	return RXECTL_OK;
}

enum { ENV_FOR = 1, ENV_SHELL, ENV_IBDEV2NETDEV };
const struct opt_spec cmd_env_opts[] = {
	{ "for", 0, "FRAMEWORK", "only this framework's settings: ucx, nccl, openmpi, libfabric, "
	  "perftest, qperf, rping, ceph, spdk or all (repeatable)", "all", ENV_FOR },
	{ "shell", 0, NULL, "print `export` lines for `eval \"$(rxectl env --shell)\"`", NULL,
	  ENV_SHELL },
	{ "ibdev2netdev", 0, NULL, "print each RDMA port's netdev as ibdev2netdev does", NULL,
	  ENV_IBDEV2NETDEV },
	{ NULL },
};

int cmd_env(struct rxectl *ctx, int argc, char **argv)
{
	bool want[ENV_FW_COUNT] = { false }, any = false, shell = false, map = false;
	const struct verbs_gid *rec = NULL;
	struct env_target t;
	struct rxe_details det;
	struct rxe_dev dev;
	struct opts o;
	int opt, ret;

	opts_init(&o, ctx, "env", cmd_env_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		int fw;

		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
		if (opt == ENV_SHELL)
			shell = true;
		if (opt == ENV_IBDEV2NETDEV)
			map = true;
		if (opt != ENV_FOR)
			continue;
		fw = env_framework_parse(o.value);
		if (fw < 0)
			return rxectl_usage_error("env", "--for takes ucx, nccl, openmpi, libfabric, "
						  "perftest, qperf, rping, ceph, spdk or all, not '%s'.",
						  o.value);
		for (int i = 0; i < ENV_FW_COUNT; i++)
			want[i] |= fw == ENV_FW_COUNT || fw == i;
		any = true;
	}
	if (shell && output_is_json(ctx->out))
		return rxectl_usage_error("env", "--shell and --json are two output formats; "
					  "choose one.");
	if (map) {
		if (o.npos || any || shell)
			return rxectl_usage_error("env", "--ibdev2netdev lists every RDMA port and "
						  "takes no device, --for or --shell.");
		return ibdev2netdev(ctx);
	}
	if (o.npos > 1)
		return rxectl_usage_error("env", "env takes at most one DEVICE or NETDEV, but got "
					  "'%s' too.", argv[2]);
	if (!any)
		for (int i = 0; i < ENV_FW_COUNT; i++)
			want[i] = true;

	ret = diag_pick_device(ctx, "env", o.npos ? argv[1] : NULL, &dev);
	if (ret != RXECTL_OK)
		return ret;
	ret = diag_describe(ctx, &dev, &det);
	if (ret != RXECTL_OK)
		return ret;
	for (size_t i = 0; i < det.port.n_gids; i++)
		if ((int)det.port.gids[i].index == det.gid_index)
			rec = &det.port.gids[i];
	if (!rec) {
		rxe_details_free(&det);
		return log_error(RXECTL_FAIL, "%s has no RoCE v2 GID for an IP address of %s, so "
				 "there is nothing to tell an application; add one with `ip addr "
				 "add ADDRESS/PREFIX dev %s`.", dev.name,
				 dev.netdev[0] ? dev.netdev : "its netdev",
				 dev.netdev[0] ? dev.netdev : "NETDEV");
	}
	if (!dev.netdev[0]) {
		rxe_details_free(&det);
		return log_error(RXECTL_FAIL, "the netdev of %s is gone; `rxectl status` shows it.",
				 dev.name);
	}
	t = (struct env_target){
		.device = dev.name, .port = dev.port, .netdev = dev.netdev,
		.gid_index = det.gid_index, .gid_raw = rec->raw, .gid = rec->gid, .ip = rec->ip,
		.ip_family = rec->ip_family, .active_mtu = det.have_verbs ? det.port.active_mtu : 0,
	};
	if (dev.state != RDMA_PORT_ACTIVE)
		log_warn("%s port %u is %s, not ACTIVE: these settings are right, but traffic waits "
			 "until it is; `rxectl doctor %s` says why.", dev.name, dev.port,
			 rdma_port_state_str(dev.state), dev.name);
	if (shell)
		print_shell(ctx->out, &t, want);
	else
		print_doc(ctx, &t, want);
	rxe_details_free(&det);
	return RXECTL_OK;
}
