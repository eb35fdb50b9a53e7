// SPDX-License-Identifier: GPL-2.0
/* cmd_down.c - `rxectl down NETDEV|DEVICE|--all`: delete rxe devices; absent is not an error. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "names.h"
#include "output.h"
#include "rxe.h"

enum { DOWN_ALL = 1 };
const struct opt_spec cmd_down_opts[] = {
	{ "all", 0, NULL, "delete every rxe device", NULL, DOWN_ALL },
	{ NULL },
};

int cmd_down(struct rxectl *ctx, int argc, char **argv)
{
	const char *target = NULL;
	bool all = false;
	struct opts o;
	int opt, ret = RXECTL_OK;

	opts_init(&o, ctx, "down", cmd_down_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
		if (opt == DOWN_ALL)
			all = true;
	}
	if (o.npos > 1)
		return rxectl_usage_error("down", "down takes one NETDEV or DEVICE, but also got '%s'.",
					  argv[2]);
	if (o.npos)
		target = argv[1];
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
