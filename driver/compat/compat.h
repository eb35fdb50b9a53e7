/* SPDX-License-Identifier: GPL-2.0 */
/* compat.h - every kernel-version difference the bundled rdma_rxe driver needs, force-included. */
#ifndef RXE_COMPAT_H
#define RXE_COMPAT_H

#include <linux/version.h>

/*
 * The driver is written against the 6.1 RDMA core: core-allocated QPs (5.15),
 * ib_device_ops.create_user_ah and IBK_ALLOW_USER_UNREG in kernel_cap_flags (5.19).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 19, 0)
#error "rdma_rxe (rxectl-bundled) needs Linux 5.19 or newer"
#endif

/* timer_shutdown_sync() appeared in 6.2 and was backported to some 6.1.y; fall back. */
#include <linux/timer.h>
#ifndef RXE_HAVE_TIMER_SHUTDOWN
#define rxe_timer_stop_sync(t) del_timer_sync(t)
#endif

#endif /* RXE_COMPAT_H */
