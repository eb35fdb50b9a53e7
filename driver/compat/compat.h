/* SPDX-License-Identifier: GPL-2.0 */
/* compat.h - every kernel difference the bundled rdma_rxe driver needs, force-included. */
#ifndef RXE_COMPAT_H
#define RXE_COMPAT_H

#include <linux/version.h>

/*
 * The tested range: the test bed's rows (tests/vm/rows), Debian's 6.1 (bookworm), 6.12
 * (bookworm-backports) and 7.2 (unstable) kernels, generic and cloud. The driver is written
 * against the 6.1 RDMA core: core-allocated QPs (5.15), ib_device_ops.create_user_ah and
 * IBK_ALLOW_USER_UNREG (5.19), netdev_hold()/netdev_put() with trackers (6.0). Kernels outside
 * the range are refused here rather than half-working; dkms.conf's BUILD_EXCLUSIVE_KERNEL says
 * the same before a build starts.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "rdma_rxe (rxectl-bundled) needs Linux 6.1 or newer (tested: 6.1, 6.12, 7.2); use the kernel's own rdma_rxe"
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
#error "rdma_rxe (rxectl-bundled) is tested up to Linux 7.2; newer kernels need a newer rxectl (driver/compat/)"
#endif

/*
 * Differences found by looking at the kernel's own headers (Kbuild greps them, see
 * driver/Kbuild: RXE_HAVE_*), not by version numbers, so backports are handled too:
 *   RXE_HAVE_CQ_ATTRS     ib_device_ops.create_cq takes struct uverbs_attr_bundle * (6.11)
 *   RXE_HAVE_MR_DMAH      ib_device_ops.reg_user_mr takes struct ib_dmah * (6.17)
 *   RXE_HAVE_UMEM_GET_VA  ib_umem_get() became ib_umem_get_va() (7.x)
 *   RXE_HAVE_TIMER_DELETE timer_delete()/timer_delete_sync() (6.2; del_timer*() gone in 6.16)
 *   RXE_HAVE_FLOWI4_DSCP  struct flowi4 routes by flowi4_dscp (flowi4_tos gone in 7.x)
 *   RXE_HAVE_SOCKADDR_UNSIZED  kernel_bind() takes struct sockaddr_unsized * (7.x)
 *   RXE_HAVE_UDP_TUNNEL_SK     setup_udp_tunnel_sock()/udp_tunnel_sock_release() take the
 *                              struct sock, not the struct socket (7.x)
 *   RXE_HAVE_RESIZE_USER_CQ   ib_device_ops.resize_cq became resize_user_cq (7.x)
 *   RXE_HAVE_CRC32_OPTIMIZATIONS  crc32_le() is arch-accelerated by the CRC library (6.14)
 *   RXE_HAVE_IPV6_STUB    net/ipv6_stubs.h's ipv6_stub routes IPv6 (gone in 7.x)
 *   RXE_HAVE_WQ_PERCPU    workqueues say WQ_PERCPU (7.x: alloc_workqueue() warns without it)
 * The op wrappers they select are in compat/ops.h (included by rxe_main.c).
 */
#include <linux/timer.h>
#ifdef RXE_HAVE_TIMER_DELETE
#define rxe_timer_stop_sync(t) timer_delete_sync(t)
#define rxe_timer_stop(t) timer_delete(t)
#else
#define rxe_timer_stop_sync(t) del_timer_sync(t)
#define rxe_timer_stop(t) del_timer(t)
#endif
/* from_timer() was renamed timer_container_of() (6.16). */
#if !defined(from_timer) && defined(timer_container_of)
#define from_timer(var, t, field) timer_container_of(var, t, field)
#endif

/*
 * The ICRC's CRC-32 (rxe_icrc.c): from 6.14 the CRC library's crc32_le() is arch-accelerated
 * itself (crc32_optimizations() says how; the crypto API's "crc32" calls it); before, it is
 * the generic table code and an accelerated crypto API "crc32" (crc32-pclmul) is faster.
 */
#ifndef RXE_HAVE_CRC32_OPTIMIZATIONS
#define RXE_ICRC_SHASH 1
#endif

#ifdef RXE_HAVE_UMEM_GET_VA
#define rxe_umem_get(dev, addr, len, access) ib_umem_get_va(dev, addr, len, access)
#else
#define rxe_umem_get(dev, addr, len, access) ib_umem_get(dev, addr, len, access)
#endif

#ifdef RXE_HAVE_FLOWI4_DSCP
#define rxe_flowi4_set_tos(fl, tos) ((fl)->flowi4_dscp = inet_dsfield_to_dscp(tos))
#else
#define rxe_flowi4_set_tos(fl, tos) ((fl)->flowi4_tos = (tos))
#endif
#ifdef RXE_HAVE_SOCKADDR_UNSIZED
#define rxe_bind_addr(a) ((struct sockaddr_unsized *)(a))
#else
#define rxe_bind_addr(a) ((struct sockaddr *)(a))
#endif
#ifdef RXE_HAVE_UDP_TUNNEL_SK
#define rxe_udp_tunnel_sock(sock) ((sock)->sk)
#else
#define rxe_udp_tunnel_sock(sock) (sock)
#endif

/*
 * A per-CPU workqueue says so where the kernel has WQ_PERCPU (7.2's alloc_workqueue() warns
 * when a queue is neither WQ_PERCPU nor WQ_UNBOUND); before, per-CPU was what no flag meant.
 */
#ifdef RXE_HAVE_WQ_PERCPU
#define RXE_WQ_PERCPU WQ_PERCPU
#else
#define RXE_WQ_PERCPU 0
#endif

/*
 * IPv6 routing: through ipv6_stub while the kernel has it (gone in 7.x, IPv6 is built in). A
 * Kbuild probe, not __has_include: sparse (make -C driver check) does not parse that.
 */
#ifdef RXE_HAVE_IPV6_STUB
#include <net/ipv6_stubs.h>
#define rxe_ip6_dst_lookup_flow(net, sk, fl) ipv6_stub->ipv6_dst_lookup_flow(net, sk, fl, NULL)
#else
#define rxe_ip6_dst_lookup_flow(net, sk, fl) ip6_dst_lookup_flow(net, sk, fl, NULL)
#endif

#endif /* RXE_COMPAT_H */
