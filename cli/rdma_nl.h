/* SPDX-License-Identifier: GPL-2.0 */
/* rdma_nl.h - RDMA netlink (NETLINK_RDMA, RDMA_NL_NLDEV) over libmnl: devices, ports, links. */
#ifndef RXECTL_RDMA_NL_H
#define RXECTL_RDMA_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifndef IF_NAMESIZE
#define IF_NAMESIZE 16		/* as in <net/if.h>, which clashes with <linux/if.h> */
#endif
#include <linux/netlink.h>

/* include/rdma/ib_verbs.h: IB_DEVICE_NAME_MAX, including the NUL. */
#define RXE_IBDEV_NAME_MAX 64

/*
 * Functions return 0 or a negative errno.  After a failed request the
 * kernel's extended-ACK text (if any) is in rdma_nl_ext_ack(), and
 * rdma_nl_strerror() gives "<ext-ack>: <strerror>" for messages.
 * Common errors: -EPROTONOSUPPORT from rdma_nl_open() (no RDMA netlink in
 * this kernel), -EPERM/-EACCES (needs CAP_NET_ADMIN), -ENODEV.
 */
struct rdma_nl;

int rdma_nl_open(struct rdma_nl **out);
void rdma_nl_close(struct rdma_nl *nl);
const char *rdma_nl_ext_ack(const struct rdma_nl *nl);
const char *rdma_nl_strerror(const struct rdma_nl *nl, int err);

/* One RDMA device (RDMA_NLDEV_CMD_GET). */
struct rdma_dev_info {
	uint32_t index;				/* RDMA_NLDEV_ATTR_DEV_INDEX */
	char name[RXE_IBDEV_NAME_MAX];		/* RDMA_NLDEV_ATTR_DEV_NAME */
	uint32_t num_ports;			/* RDMA_NLDEV_ATTR_PORT_INDEX in a device reply */
	uint8_t node_type;			/* RDMA_NLDEV_ATTR_DEV_NODE_TYPE */
	char protocol[16];			/* RDMA_NLDEV_ATTR_DEV_PROTOCOL: "roce", "ib", ... */
	char fw_version[64];
	uint64_t node_guid;
};

/* One port (RDMA_NLDEV_CMD_PORT_GET). */
struct rdma_port_info {
	uint32_t dev_index;
	char dev_name[RXE_IBDEV_NAME_MAX];
	uint32_t port;
	uint8_t state;				/* IB port state: 1 DOWN .. 4 ACTIVE */
	uint8_t phys_state;			/* 1 SLEEP .. 5 LINK_UP .. */
	bool has_ndev;
	uint32_t ndev_index;
	char ndev_name[IF_NAMESIZE];
};

/* Dumps; *out is malloc'd (free() it), *n may be 0. */
int rdma_nl_list_devs(struct rdma_nl *nl, struct rdma_dev_info **out, size_t *n);
int rdma_nl_list_ports(struct rdma_nl *nl, struct rdma_port_info **out, size_t *n);
int rdma_nl_get_port(struct rdma_nl *nl, uint32_t dev_index, uint32_t port,
		     struct rdma_port_info *out);

/* The driver behind a device (enum rdma_driver_id, e.g. RDMA_DRIVER_RXE),
 * from RDMA_NLDEV_CMD_GET_CHARDEV "uverbs".  -ENOENT if ib_uverbs has none. */
int rdma_nl_driver_id(struct rdma_nl *nl, uint32_t dev_index, uint32_t *driver_id);

/* RDMA_NLDEV_CMD_SYS_GET: *shared 1 when every netns sees every RDMA device
 * (the default), 0 in exclusive mode.  -EOPNOTSUPP on kernels before 5.5. */
int rdma_nl_netns_mode(struct rdma_nl *nl, int *shared);

/* RDMA_NLDEV_CMD_NEWLINK: create `dev_name` of `link_type` ("rxe") on netdev `ndev`. */
int rdma_nl_newlink(struct rdma_nl *nl, const char *dev_name, const char *link_type,
		    const char *ndev);
/* RDMA_NLDEV_CMD_DELLINK by device index. */
int rdma_nl_dellink(struct rdma_nl *nl, uint32_t dev_index);

/* One counter of RDMA_NLDEV_CMD_STAT_GET (as `rdma statistic show` prints it). */
struct rdma_stat {
	char name[64];				/* e.g. "rcvd_seq_err" */
	uint64_t value;
};
#define RDMA_NL_MAX_STATS 64

/* RDMA_NLDEV_CMD_STAT_GET of one port's default (hardware) counters: up to `max` into out,
 * *n of them.  -EINVAL or -EOPNOTSUPP when the driver has none (e.g. the bundled rxe). */
int rdma_nl_get_stats(struct rdma_nl *nl, uint32_t dev_index, uint32_t port,
		      struct rdma_stat *out, size_t max, size_t *n);

/* Message building and parsing, exposed for unit tests. */
struct nlmsghdr *rdma_nl_build_stat_get(void *buf, size_t len, uint32_t seq, uint32_t dev_index,
					uint32_t port);
/* Parse a STAT_GET reply: the RDMA_NLDEV_ATTR_STAT_HWCOUNTERS table.  0, or -EINVAL when the
 * reply has no such table; malformed entries are skipped. */
int rdma_nl_parse_stats(const struct nlmsghdr *nlh, struct rdma_stat *out, size_t max, size_t *n);
struct nlmsghdr *rdma_nl_build_newlink(void *buf, size_t len, uint32_t seq,
				       const char *dev_name, const char *link_type,
				       const char *ndev);
struct nlmsghdr *rdma_nl_build_dellink(void *buf, size_t len, uint32_t seq, uint32_t dev_index);
/* Parse one reply; unknown attributes are skipped.  0 or -EINVAL. */
int rdma_nl_parse_dev(const struct nlmsghdr *nlh, struct rdma_dev_info *out);
int rdma_nl_parse_port(const struct nlmsghdr *nlh, struct rdma_port_info *out);
/* Parse an NLMSG_ERROR: returns its (negative) error and copies the
 * extended-ACK message (NLMSGERR_ATTR_MSG), if any, into ext_ack. */
int rdma_nl_parse_error(const struct nlmsghdr *nlh, char *ext_ack, size_t len);

/* "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER", or "UNKNOWN". */
const char *rdma_port_state_str(uint8_t state);
/* "SLEEP", "POLLING", "DISABLED", "TRAINING", "LINK_UP", ... or "UNKNOWN". */
const char *rdma_phys_state_str(uint8_t phys_state);

#define RDMA_PORT_ACTIVE 4

#endif
