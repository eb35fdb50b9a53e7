// SPDX-License-Identifier: GPL-2.0
/* cmd_up.c - `rxectl up [NETDEV]`: create the rxe device (idempotently) and wait until it is usable. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "names.h"
#include "output.h"
#include "rxe.h"

#define UP_DEFAULT_WAIT 10	/* seconds; documented in rxectl(8) */

static int parse_wait(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 3600)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int cmd_up(struct rxectl *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "wait", required_argument, NULL, 'w' },
		{ "json", no_argument,       NULL, 'j' },
		{ "help", no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *netdev = NULL, *name = NULL, *why;
	char defname[RXE_IBDEV_NAME_MAX];
	struct rxe_conf conf;
	int opt, wait = UP_DEFAULT_WAIT, ret = RXECTL_OK;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "n:w:jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			name = optarg;
			break;
		case 'w':
			if (parse_wait(optarg, &wait) < 0)
				return rxectl_usage_error("up", "--wait needs a whole number of seconds "
							  "from 0 to 3600, not '%s'.", optarg);
			break;
		case 'j':
			ctx_set_json(ctx);
			break;
		case 'h':
			rxectl_command_usage("up", true);
			return RXECTL_OK;
		default:
			if (optopt == 'n' || optopt == 'w')
				return rxectl_usage_error("up", "option %s needs a value.",
							  argv[optind - 1]);
			return rxectl_usage_error("up", "unknown option '%s' for up.", argv[optind - 1]);
		}
	}
	if (optind < argc)
		netdev = argv[optind++];
	if (optind < argc)
		return rxectl_usage_error("up", "up takes at most one NETDEV, but also got '%s'.",
					  argv[optind]);
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
