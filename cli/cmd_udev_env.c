// SPDX-License-Identifier: GPL-2.0
/* cmd_udev_env.c - `rxectl udev-env NETDEV`: tell the udev rule whether a netdev is managed, as KEY=value lines. */
#include <string.h>

#include "config.h"
#include "log.h"
#include "names.h"
#include "output.h"
#include "rxectl.h"
#include "sdbus.h"

/*
 * Run by udev/90-rxe.rules through IMPORT{program} for every net device that
 * is added or renamed.  For a netdev declared in rxe.conf it prints
 *   RXE_MANAGED=1
 *   RXE_NAME=<rdma device name>
 *   RXE_UNIT=rxe@<escaped netdev>.service
 * and the rule adds the unit to SYSTEMD_WANTS; for any other netdev it
 * prints nothing.  It exits 0 in both cases, and also when the config file
 * is missing or broken (a message goes to stderr, which udev logs), so that a
 * bad rxe.conf never gets in the way of bringing up the network.
 */
int cmd_udev_env(struct rxectl *ctx, int argc, char **argv)
{
	const struct rxe_conf_entry *e;
	struct rxe_conf conf;
	char unit[128];
	const char *why;

	struct opts o;
	int opt;

	opts_init(&o, ctx, "udev-env", NULL, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
	}
	if (o.npos != 1)
		return rxectl_usage_error("udev-env", "udev-env takes exactly one NETDEV.");
	if ((why = netdev_name_invalid(argv[1])))
		return log_error(RXECTL_USAGE, "netdev name '%s' %s.", argv[1], why);
	if (ctx_load_config(ctx, &conf) != RXECTL_OK) {
		/* said why on stderr; the netdev is not managed */
		out_obj_begin(ctx->out, NULL);
		out_bool(ctx->out, "managed", NULL, false);
		out_obj_end(ctx->out);
		return RXECTL_OK;
	}
	e = config_find_netdev(&conf, argv[1]);
	out_obj_begin(ctx->out, NULL);
	if (e && sdbus_rxe_unit(e->netdev, unit, sizeof(unit)) == 0) {
		out_bool(ctx->out, "managed", "RXE_MANAGED=1\n", true);
		out_str(ctx->out, "name", "RXE_NAME=%s\n", e->name);
		out_str(ctx->out, "unit", "RXE_UNIT=%s\n", unit);
	} else {
		out_bool(ctx->out, "managed", NULL, false);
	}
	out_obj_end(ctx->out);
	config_free(&conf);
	return RXECTL_OK;
}
