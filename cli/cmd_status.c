// SPDX-License-Identifier: GPL-2.0
/* cmd_status.c - `rxectl status`: every rxe device, and every configured netdev without one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "config.h"
#include "driver.h"
#include "log.h"
#include "output.h"
#include "rxe.h"

static void print_missing(struct rxectl *ctx, const struct rxe_conf *conf,
			  const struct rxe_conf_entry *e)
{
	struct output *o = ctx->out;
	struct netdev_ctx *nd = ctx_netdev(ctx);
	struct netdev_info info;
	bool exists = nd && netdev_get_by_name(nd, e->netdev, &info) == 0;

	out_obj_begin(o, NULL);
	out_str(o, "netdev", "missing: %s", e->netdev);
	out_str(o, "name", " (%s", e->name);
	out_text(o, ", declared in %s:%u)", conf->path, e->line);
	out_bool(o, "netdev_exists", NULL, exists);
	if (exists)
		out_text(o, ": %s has no rxe device; create it with `rxectl up %s`\n",
			 e->netdev, e->netdev);
	else
		out_text(o, ": netdev %s does not exist\n", e->netdev);
	out_obj_end(o);
}

/* The kernel and the rdma_rxe in use: what a bug report needs first. */
static void print_driver(struct rxectl *ctx)
{
	struct output *o = ctx->out;
	char version[128] = "";
	bool loaded = access("/sys/module/rdma_rxe", F_OK) == 0;
	struct utsname u;

	uname(&u);
	out_str(o, "kernel", "kernel %s", u.release);
	out_obj_begin(o, "driver");
	out_bool(o, "loaded", NULL, loaded);
	if (!loaded) {
		out_null(o, "kind", ", rdma_rxe not loaded");
		out_null(o, "version", " (see `rxectl driver`)\n");
	} else {
		rxe_driver_version(version, sizeof(version));
		out_str(o, "kind", ", driver %s", rxe_driver_kind());
		if (version[0])
			out_str(o, "version", " %s\n", version);
		else
			out_null(o, "version", "\n");
	}
	out_obj_end(o);
}

int cmd_status(struct rxectl *ctx, int argc, char **argv)
{
	struct rxe_conf conf;
	struct rxe_dev *devs = NULL;
	size_t n = 0, n_missing = 0;
	struct opts o;
	int opt, ret;

	opts_init(&o, ctx, "status", NULL, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
		if (opt == OPTS_ARG)
			return rxectl_usage_error("status", "status takes no arguments, but got '%s'.",
						  o.arg);
	}

	ret = ctx_load_config(ctx, &conf);
	if (ret != RXECTL_OK)
		return ret;
	if (rxe_list(ctx, &devs, &n) < 0) {
		config_free(&conf);
		return RXECTL_FAIL;
	}

	out_obj_begin(ctx->out, NULL);
	out_arr_begin(ctx->out, "devices");
	for (size_t i = 0; i < n; i++) {
		struct rxe_details det;

		rxe_describe(ctx, &devs[i], &det);
		rxe_print_device(ctx, &devs[i], &det);
		rxe_details_free(&det);
	}
	out_arr_end(ctx->out);
	out_arr_begin(ctx->out, "missing");
	for (size_t i = 0; i < conf.n; i++) {
		if (rxe_find_by_netdev(devs, n, conf.entries[i].netdev))
			continue;
		print_missing(ctx, &conf, &conf.entries[i]);
		n_missing++;
	}
	out_arr_end(ctx->out);
	if (n == 0 && n_missing == 0)
		out_text(ctx->out, "no rxe devices.\n");
	print_driver(ctx);
	out_obj_end(ctx->out);

	free(devs);
	config_free(&conf);
	return RXECTL_OK;
}
