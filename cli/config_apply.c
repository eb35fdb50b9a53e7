// SPDX-License-Identifier: GPL-2.0
/* config_apply.c - what `up` does with rxe.conf's keys: [global]'s driver and tune, a netdev's `mtu =`. */
#include <errno.h>
#include <string.h>

#include "config.h"
#include "config_apply.h"
#include "driver.h"
#include "log.h"
#include "netdev.h"
#include "rxectl.h"
#include "tune.h"

static int apply_driver(const struct rxe_conf *conf)
{
	enum rxe_driver_choice want = conf ? conf->driver : RXE_DRIVER_AUTO;
	const char *kind;

	if (rxe_driver_ensure(want) < 0)
		return RXECTL_FAIL;
	kind = rxe_driver_kind();
	if (!kind || want == RXE_DRIVER_AUTO)
		return RXECTL_OK;
	if ((want == RXE_DRIVER_BUNDLED) != !strcmp(kind, "bundled"))
		log_warn("%s (line %u) chooses driver = %s, but the %s rdma_rxe is loaded already, "
			 "so the device runs on that one; `rxectl driver use %s` switches.",
			 conf->path, conf->global_line, rxe_driver_choice_str(want), kind,
			 rxe_driver_choice_str(want));
	return RXECTL_OK;
}

static int apply_mtu(struct rxectl *ctx, const struct rxe_conf_entry *e,
		     const struct netdev_info *info)
{
	struct netdev_ctx *nd;
	unsigned int max = 0;
	int err;

	if (!e || !e->mtu || e->mtu == info->mtu)
		return RXECTL_OK;
	nd = ctx_netdev(ctx);
	if (!nd)
		return RXECTL_FAIL;
	err = netdev_set_mtu(nd, info->ifindex, e->mtu);
	if (err == -EPERM || err == -EACCES)
		return log_error(RXECTL_FAIL, "setting the MTU of %s to %u (%s line %u) was refused; "
				 "run rxectl as root.", e->netdev, e->mtu, ctx->conf->path, e->mtu_line);
	if ((err == -EINVAL || err == -ERANGE) && netdev_max_mtu(e->netdev, &max) == 0 && max &&
	    e->mtu > max)
		return log_error(RXECTL_FAIL, "%s takes an MTU of at most %u, so `mtu = %u` (%s line "
				 "%u) cannot be set; lower it to %u or less, and set the same MTU on "
				 "the peers.", e->netdev, max, e->mtu, ctx->conf->path, e->mtu_line, max);
	if (err == -EINVAL || err == -ERANGE)
		return log_error(RXECTL_FAIL, "%s does not take an MTU of %u (%s line %u): %s; a "
				 "VLAN or other stacked netdev takes at most its parent's MTU, so raise "
				 "that first or lower `mtu =` (`ip -d link show %s` shows its limits).",
				 e->netdev, e->mtu, ctx->conf->path, e->mtu_line, strerror(-err),
				 e->netdev);
	if (err < 0)
		return log_error(RXECTL_FAIL, "cannot set the MTU of %s to %u (%s line %u): %s; "
				 "check what the netdev takes with `ip -d link show %s`.", e->netdev,
				 e->mtu, ctx->conf->path, e->mtu_line, strerror(-err), e->netdev);
	log_info("set the MTU of %s from %u to %u, as %s line %u says; the peers and the switch "
		 "must carry it too.", e->netdev, info->mtu, e->mtu, ctx->conf->path, e->mtu_line);
	return RXECTL_OK;
}

int config_apply_up(struct rxectl *ctx, const char *netdev, const struct netdev_info *info)
{
	const struct rxe_conf_entry *e = ctx->conf ? config_find_netdev(ctx->conf, netdev) : NULL;
	int ret;

	ret = apply_driver(ctx->conf);
	if (ret != RXECTL_OK)
		return ret;
	ret = apply_mtu(ctx, e, info);
	if (ret != RXECTL_OK)
		return ret;
	if (ctx->conf && ctx->conf->tune)
		return tune_apply_for_up(ctx, netdev);
	return RXECTL_OK;
}
