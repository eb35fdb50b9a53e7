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

static int remove_one(struct rxectl *ctx, const struct rxe_dev *d)
{
	char what[128];
	int err = rdma_nl_dellink(ctx_rdma_nl(ctx), d->index);

	if (err == -ENODEV || err == -ENOENT)
		err = 0;	/* went away by itself meanwhile */
	if (err < 0) {
		snprintf(what, sizeof(what), "deleting %s", d->name);
		return rxe_report_nl_error(ctx, err, what);
	}
	log_debug("deleted %s (index %u)", d->name, d->index);
	out_obj_begin(ctx->out, NULL);
	out_str(ctx->out, "name", "removed %s", d->name);
	if (d->netdev[0])
		out_str(ctx->out, "netdev", " from %s", d->netdev);
	else
		out_null(ctx->out, "netdev", NULL);
	out_text(ctx->out, ".\n");
	out_obj_end(ctx->out);
	return RXECTL_OK;
}

int cmd_down(struct rxectl *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all",  no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rxe_dev *devs = NULL;
	const struct rxe_dev *d;
	const char *target = NULL;
	bool all = false;
	size_t n = 0;
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

	if (rxe_list(ctx, &devs, &n) < 0)
		return RXECTL_FAIL;

	out_obj_begin(ctx->out, NULL);
	out_arr_begin(ctx->out, "removed");
	if (all) {
		for (size_t i = 0; i < n; i++) {
			int r = remove_one(ctx, &devs[i]);

			if (r > ret)
				ret = r;
		}
		if (n == 0)
			out_text(ctx->out, "no rxe devices to remove.\n");
	} else {
		d = rxe_find_by_name(devs, n, target);
		if (!d)
			d = rxe_find_by_netdev(devs, n, target);
		if (d)
			ret = remove_one(ctx, d);
		else
			out_text(ctx->out, "no rxe device is named %s or sits on it; nothing to remove.\n",
				 target);
	}
	out_arr_end(ctx->out);
	out_obj_end(ctx->out);
	free(devs);
	return ret;
}
