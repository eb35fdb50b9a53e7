/* SPDX-License-Identifier: GPL-2.0 */
/* rxe.h - the device model every command builds on: which rxe devices exist, their state, GIDs. */
#ifndef RXECTL_RXE_H
#define RXECTL_RXE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifndef IF_NAMESIZE
#define IF_NAMESIZE 16		/* as in <net/if.h>, which clashes with <linux/if.h> */
#endif
#include "rxectl.h"
#include "rdma_nl.h"
#include "netdev.h"
#include "verbs.h"

/* One rxe device as RDMA netlink sees it (port 1: rxe has one port). */
struct rxe_dev {
	uint32_t index;				/* RDMA device index */
	char name[RXE_IBDEV_NAME_MAX];
	uint32_t port;				/* always 1 for rxe */
	uint8_t state;				/* IB port state, RDMA_PORT_ACTIVE == 4 */
	uint8_t phys_state;
	char netdev[IF_NAMESIZE];		/* "" if the netdev is gone */
	uint32_t ndev_index;
};

/*
 * Every rxe device (other RDMA devices are skipped), sorted by name.
 * *out is malloc'd (free() it).  Returns 0 or a negative errno after
 * printing why.
 */
int rxe_list(struct rxectl *ctx, struct rxe_dev **out, size_t *n);
/* Lookups in a list from rxe_list(); NULL if none. */
const struct rxe_dev *rxe_find_by_name(const struct rxe_dev *v, size_t n, const char *name);
const struct rxe_dev *rxe_find_by_netdev(const struct rxe_dev *v, size_t n, const char *netdev);

/* What status and up print about one device. */
struct rxe_details {
	bool have_verbs;			/* port/gids below are valid */
	struct verbs_port port;			/* active MTU, GID table */
	bool have_netdev;
	struct netdev_info netdev;		/* netdev MTU, flags, operstate */
	struct netdev_addr *addrs;		/* the netdev's IP addresses */
	size_t n_addrs;
	const char *driver;			/* "in-tree", "bundled" or NULL */
	int gid_index;				/* recommended GID index, -1 if none */
};

/* Gather details (never fails hard: missing pieces are left unset). */
void rxe_describe(struct rxectl *ctx, const struct rxe_dev *d, struct rxe_details *out);
void rxe_details_free(struct rxe_details *det);

/*
 * The GID index applications should use: the first RoCE v2 GID that maps
 * to an IPv4 address of the netdev; failing that, to a global IPv6
 * address; failing that, to a link-local one.  -1 if there is none.
 */
int rxe_recommend_gid(const struct verbs_gid *gids, size_t n_gids,
		      const struct netdev_addr *addrs, size_t n_addrs);

/*
 * Print one device through ctx->out (an object; in JSON inside whatever
 * array/object is open).  Fields: name, index, netdev, port, state,
 * physical_state, active_mtu, netdev_mtu, driver, gid_index, gids[]
 * (index, gid, type, ip).
 */
void rxe_print_device(struct rxectl *ctx, const struct rxe_dev *d, const struct rxe_details *det);

/*
 * Is the device ready for applications: port ACTIVE, and a RoCE v2 GID for
 * an address of the netdev of the best kind it has (IPv4, else global
 * IPv6, else link-local)?  If not, `why` gets a sentence fragment saying
 * what is missing and what to do.
 */
bool rxe_ready(const struct rxe_dev *d, const struct rxe_details *det, char *why, size_t len);

/*
 * The short form `up` prints: text is one sentence ("rxe_eth0 on eth0 is
 * ACTIVE, active MTU 1024; applications should use GID index 1 (RoCE v2,
 * 192.0.2.1)."); JSON is an object with name, netdev, state, active_mtu,
 * gid_index, gid, ip, created.
 */
void rxe_print_summary(struct rxectl *ctx, const struct rxe_dev *d,
		       const struct rxe_details *det, bool created);

/*
 * Print the one sentence for a failed RDMA netlink request and return
 * RXECTL_FAIL: `what` is a phrase like "creating rxe_eth0 on eth0".
 * -EPERM/-EACCES say that CAP_NET_ADMIN (root) is needed; anything else
 * shows the kernel's extended-ACK text and strerror.
 */
int rxe_report_nl_error(struct rxectl *ctx, int err, const char *what);

/*
 * device.c: create and delete devices; every command (up, down, monitor,
 * enable) goes through these two.
 *
 * rxe_up(): give `netdev` its rxe device `name` (idempotent: a device already
 * on the netdev is kept, whatever its name), then wait up to `wait` seconds
 * for it to be ready; prints the summary (rxe_print_summary).  Finding and
 * creating happen under the creation lock (lock.h), taken and released here
 * unless the caller already holds it (then it stays held).  Returns
 * RXECTL_OK, RXECTL_GONE when the netdev is not there or went away at any
 * step (said at warning level: NIC churn is not an error), or RXECTL_FAIL /
 * RXECTL_USAGE after printing why.
 */
int rxe_up(struct rxectl *ctx, const char *netdev, const char *name, int wait);
/*
 * rxe_down(): delete the device named `target` or sitting on the netdev
 * `target`; every rxe device if `target` is NULL.  Absent is not an error.
 * Prints one object per removed device into the open array of ctx->out.
 */
int rxe_down(struct rxectl *ctx, const char *target);
/* Of two exit codes, the one to report: USAGE > FAIL > GONE > OK. */
int rxe_worse(int a, int b);

#endif
