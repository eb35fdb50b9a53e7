/* SPDX-License-Identifier: GPL-2.0 */
/* verbs.h - port attributes and the GID table through libibverbs. */
#ifndef RXECTL_VERBS_H
#define RXECTL_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <arpa/inet.h>

enum gid_type { GID_TYPE_IB, GID_TYPE_ROCE_V1, GID_TYPE_ROCE_V2 };

struct verbs_gid {
	unsigned int index;
	enum gid_type type;
	uint8_t raw[16];
	char gid[INET6_ADDRSTRLEN];	/* "fe80::..." or "::ffff:192.0.2.1" */
	int ip_family;			/* AF_INET for IPv4-mapped GIDs, else AF_INET6 */
	char ip[INET6_ADDRSTRLEN];	/* the IP it maps to: "192.0.2.1" or the IPv6 text */
	uint32_t ndev_ifindex;
};

/* What the device offers that an operator asks about (ibv_query_device). */
struct verbs_caps {
	bool fast_reg;			/* fast-register MRs (IBV_DEVICE_MEM_MGT_EXTENSIONS) */
	bool mw;			/* memory windows type 1 (IBV_DEVICE_MEM_WINDOW) */
	bool mw_type2;			/* memory windows type 2A or 2B */
	bool atomics;			/* atomic_cap != IBV_ATOMIC_NONE */
	uint64_t max_mr_size;
	unsigned int max_qp, max_cq, max_mr, max_pd, max_srq, max_qp_wr, max_sge, max_mcast_grp;
};

struct verbs_port {
	uint8_t state;			/* enum ibv_port_state (same numbers as netlink) */
	uint8_t phys_state;
	unsigned int active_mtu;	/* bytes: 256 .. 4096 */
	unsigned int max_mtu;		/* bytes */
	struct verbs_gid *gids;		/* malloc'd, sorted by index */
	size_t n_gids;
	bool have_caps;			/* caps below are valid */
	struct verbs_caps caps;
};

/* Query `port` of device `dev_name` (and the device's caps).  -ENODEV if libibverbs does not see the
 * device (e.g. ib_uverbs not loaded, or no provider).  Free with verbs_port_free(). */
int verbs_query_port(const char *dev_name, unsigned int port, struct verbs_port *out);
void verbs_port_free(struct verbs_port *p);

/* "IB", "RoCE v1", "RoCE v2". */
const char *gid_type_str(enum gid_type t);
/* Fill gid/ip/ip_family from raw. */
void verbs_gid_format(struct verbs_gid *g);
/* enum ibv_mtu (1..5) to bytes, 0 if unknown. */
unsigned int verbs_mtu_bytes(int ibv_mtu);

#endif
