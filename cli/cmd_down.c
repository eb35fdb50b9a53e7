// SPDX-License-Identifier: GPL-2.0
/* cmd_down.c - `rxectl down NETDEV|DEVICE|--all`: delete rxe devices; absent is not an error. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "names.h"
#include "output.h"
#include "rxe.h"

int cmd_down(struct rxectl *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all",  no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *target = NULL;
	bool all = false;
	int opt, ret = RXECTL_OK;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "ajh", opts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			all = true;
			break;
		case 'j':
			ctx_set_json(ctx);
			break;
		case 'h':
			rxectl_command_usage("down", true);
			return RXECTL_OK;
		default:
			return rxectl_usage_error("down", "unknown option '%s' for down.",
						  argv[optind - 1]);
		}
	}
	if (optind < argc)
		target = argv[optind++];
	if (optind < argc)
		return rxectl_usage_error("down", "down takes one NETDEV or DEVICE, but also got '%s'.",
					  argv[optind]);
	if (all && target)
		return rxectl_usage_error("down", "give either --all or one NETDEV or DEVICE, not both.");
	if (!all && !target)
		return rxectl_usage_error("down", "say which device to delete: a NETDEV, a DEVICE, "
					  "or --all.");
	if (target && netdev_name_invalid(target) && ibdev_name_invalid(target))
		return log_error(RXECTL_USAGE, "'%s' is neither a valid netdev name (it %s) nor a "
				 "valid RDMA device name (it %s).", target,
				 netdev_name_invalid(target), ibdev_name_invalid(target));

	out_obj_begin(ctx->out, NULL);
	out_arr_begin(ctx->out, "removed");
	ret = rxe_down(ctx, all ? NULL : target);
	out_arr_end(ctx->out);
	out_obj_end(ctx->out);
	return ret;
}
