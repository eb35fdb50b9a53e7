/* SPDX-License-Identifier: GPL-2.0 */
/* compat.h - every kernel-version difference the bundled rdma_rxe driver needs, force-included. */
#ifndef RXE_COMPAT_H
#define RXE_COMPAT_H

#include <linux/version.h>

/*
 * The driver is written against the 6.1 RDMA core: core-allocated QPs (5.15),
 * ib_device_ops.create_user_ah and IBK_ALLOW_USER_UNREG in kernel_cap_flags (5.19),
 * netdev_hold()/netdev_put() with trackers (6.0). 6.1 is the only kernel it has been
 * built and tested on; older ones are refused here rather than half-working.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "rdma_rxe (rxectl-bundled) needs Linux 6.1 or newer"
#endif

/*
 * Stopping a QP's timers for good: del_timer_sync() is enough because the timer callbacks
 * check qp->dying and never re-arm; timer_shutdown_sync() (6.2) is not needed.
 */
#include <linux/timer.h>
#define rxe_timer_stop_sync(t) del_timer_sync(t)

#endif /* RXE_COMPAT_H */
