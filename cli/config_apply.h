/* SPDX-License-Identifier: GPL-2.0 */
/* config_apply.h - what `up` (and the units and the monitor through it) does with rxe.conf's keys before it creates a device. */
#ifndef RXECTL_CONFIG_APPLY_H
#define RXECTL_CONFIG_APPLY_H

struct rxectl;
struct netdev_info;

/*
 * Before `netdev` gets its device, with what ctx_load_config() read last (ctx->conf; none read:
 * the defaults): load the rdma_rxe that [global] `driver =` chooses unless one is loaded (and
 * warn when the loaded one is not the one chosen), and give the netdev its `mtu =` when its
 * section has one and the MTU differs; with `tune = yes`, apply `rxectl tune`'s values but the
 * MTU (tune.h: failures there are warnings).  Each change is said at info level.  Returns RXECTL_OK,
 * or RXECTL_FAIL after printing the sentence that names the fix.
 */
int config_apply_up(struct rxectl *ctx, const char *netdev, const struct netdev_info *info);

#endif
