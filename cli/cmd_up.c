// SPDX-License-Identifier: GPL-2.0
/* cmd_up.c - `rxectl up [NETDEV]`: create the rxe device (idempotently) and wait until it is usable. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "names.h"
#include "output.h"
#include "rxe.h"

#define UP_DEFAULT_WAIT 10	/* seconds; documented in rxectl(8) and --help */

/* Whole seconds, digits only (no sign, space or hex). */
static int parse_wait(const char *s, int *out)
{
	unsigned long v;

	if (opts_uint(s, 0, 3600, &v) < 0)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

enum { UP_NAME = 1, UP_WAIT };
const struct opt_spec cmd_up_opts[] = {
	{ "name", 0, "NAME", "the device name (with a NETDEV)", "rxe_NETDEV, or `name =`", UP_NAME },
	{ "wait", 0, "SECONDS", "wait up to SECONDS (0-3600) for the port to be ACTIVE",
	  OPTS_STR(UP_DEFAULT_WAIT), UP_WAIT },
	{ NULL },
};

int cmd_up(struct rxectl *ctx, int argc, char **argv)
{
	const char *netdev = NULL, *name = NULL, *why;
	char defname[RXE_IBDEV_NAME_MAX];
	struct rxe_conf conf;
	struct opts o;
	int opt, wait = UP_DEFAULT_WAIT, ret = RXECTL_OK;

	opts_init(&o, ctx, "up", cmd_up_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		switch (opt) {
		case UP_NAME:
			name = o.value;
			break;
		case UP_WAIT:
			if (parse_wait(o.value, &wait) < 0)
				return rxectl_usage_error("up", "--wait needs a whole number of seconds "
							  "from 0 to 3600, not '%s'.", o.value);
			break;
		case OPTS_HELP:
			return RXECTL_OK;
		case OPTS_ERROR:
			return RXECTL_USAGE;
		}
	}
	if (o.npos)
		netdev = argv[1];
	if (o.npos > 1)
		return rxectl_usage_error("up", "up takes at most one NETDEV, but also got '%s'.",
					  argv[2]);
	if (name && !netdev)
		return rxectl_usage_error("up", "--name needs a NETDEV: names for every configured "
					  "netdev come from `name =` in the config file.");
	if (netdev && (why = netdev_name_invalid(netdev)))
		return log_error(RXECTL_USAGE, "netdev name '%s' %s.", netdev, why);
	if (name && (why = ibdev_name_invalid(name)))
		return log_error(RXECTL_USAGE, "device name '%s' %s.", name, why);

	/* The whole file is checked before anything changes. */
	ret = ctx_load_config(ctx, &conf);
	if (ret != RXECTL_OK)
		return ret;

	out_obj_begin(ctx->out, NULL);
	out_arr_begin(ctx->out, "devices");
	if (netdev) {
		const struct rxe_conf_entry *e = config_find_netdev(&conf, netdev);

		if (!name && e) {
			name = e->name;
		} else if (!name) {
			if (default_ibdev_name(netdev, defname, sizeof(defname)) < 0 ||
			    (why = ibdev_name_invalid(defname))) {
				config_free(&conf);
				return log_error(RXECTL_USAGE, "the default device name rxe_%s is not "
						 "a valid RDMA device name; choose one with --name.",
						 netdev);
			}
			name = defname;
		}
		ret = rxe_up(ctx, netdev, name, wait);
	} else if (!conf.path) {
		ret = log_error(RXECTL_USAGE, "no NETDEV given and %s does not exist; name a netdev "
				"(`rxectl up eth0`) or declare netdevs in that file (see rxe.conf(5)).",
				ctx->config_path);
	} else if (conf.n == 0) {
		log_info("%s declares no netdevs; nothing to bring up.", conf.path);
	} else {
		for (size_t i = 0; i < conf.n; i++) {
			int r = rxe_up(ctx, conf.entries[i].netdev, conf.entries[i].name, wait);

			ret = rxe_worse(ret, r);
		}
	}
	out_arr_end(ctx->out);
	out_obj_end(ctx->out);
	config_free(&conf);
	return ret;
}
