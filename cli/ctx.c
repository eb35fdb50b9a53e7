// SPDX-License-Identifier: GPL-2.0
/* ctx.c - the context's lazily opened handles, with one clear sentence when they cannot open. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "driver.h"
#include "kmod.h"
#include "log.h"
#include "netdev.h"
#include "output.h"
#include "rdma_nl.h"
#include "rxectl.h"

struct rdma_nl *ctx_rdma_nl(struct rxectl *ctx)
{
	int err;

	if (ctx->rnl)
		return ctx->rnl;
	err = rdma_nl_open(&ctx->rnl);
	if (err == -EPROTONOSUPPORT && module_state("ib_core") == MODULE_AVAILABLE &&
	    module_load("ib_core") == 0)
		err = rdma_nl_open(&ctx->rnl);
	if (err == 0)
		return ctx->rnl;
	ctx->rnl = NULL;
	if (err == -EPROTONOSUPPORT)
		report_no_rdma_kernel();
	else if (err == -EPERM || err == -EACCES)
		log_msg(LOG_ERR, "opening RDMA netlink was refused (%s); run rxectl as root.",
			strerror(-err));
	else
		log_msg(LOG_ERR, "cannot open RDMA netlink: %s.", strerror(-err));
	return NULL;
}

int ctx_rdma_nl_try(struct rxectl *ctx)
{
	int err;

	if (ctx->rnl)
		return 0;
	err = rdma_nl_open(&ctx->rnl);
	if (err)
		ctx->rnl = NULL;
	return err;
}

struct netdev_ctx *ctx_netdev(struct rxectl *ctx)
{
	int err;

	if (ctx->nd)
		return ctx->nd;
	err = netdev_open(&ctx->nd);
	if (err == 0)
		return ctx->nd;
	ctx->nd = NULL;
	log_msg(LOG_ERR, "cannot open rtnetlink to query network interfaces: %s.", strerror(-err));
	return NULL;
}

/* Keep what was read for the device model (config_apply.c). */
static int keep_copy(struct rxectl *ctx, const struct rxe_conf *conf)
{
	struct rxe_conf *copy = calloc(1, sizeof(*copy));

	if (!copy || config_copy(copy, conf) < 0) {
		free(copy);
		return log_error(RXECTL_FAIL, "out of memory while reading the configuration.");
	}
	ctx_forget_config(ctx);
	ctx->conf = copy;
	return RXECTL_OK;
}

void ctx_forget_config(struct rxectl *ctx)
{
	if (ctx->conf)
		config_free(ctx->conf);
	free(ctx->conf);
	ctx->conf = NULL;
}

int ctx_load_config(struct rxectl *ctx, struct rxe_conf *conf)
{
	int err = config_load(ctx->config_path, conf);

	if (err == -ENOENT && !ctx->config_explicit)
		memset(conf, 0, sizeof(*conf));
	if (err == 0 || (err == -ENOENT && !ctx->config_explicit)) {
		if (keep_copy(ctx, conf) != RXECTL_OK) {
			config_free(conf);
			return RXECTL_FAIL;
		}
	}
	if (err == 0)
		return RXECTL_OK;
	if (err == -ENOENT) {
		if (!ctx->config_explicit)
			return RXECTL_OK;	/* no file: nothing declared */
		return log_error(RXECTL_USAGE, "the configuration file %s does not exist; check the "
				 "path given with -c or $RXECTL_CONFIG.", ctx->config_path);
	}
	/* Malformed, a directory, unreadable: the file named is not a usable rxe.conf. */
	return err == -ENOMEM ? RXECTL_FAIL : RXECTL_USAGE;
}

void ctx_set_json(struct rxectl *ctx)
{
	ctx->json = true;
	if (ctx->out)
		output_set_json(ctx->out, true);
}

void ctx_release(struct rxectl *ctx)
{
	rdma_nl_close(ctx->rnl);
	ctx->rnl = NULL;
	netdev_close(ctx->nd);
	ctx->nd = NULL;
	output_free(ctx->out);
	ctx->out = NULL;
	ctx_forget_config(ctx);
}
