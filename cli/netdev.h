/* SPDX-License-Identifier: GPL-2.0 */
/* netdev.h - network interfaces over rtnetlink (libnl-route-3): links and addresses. */
#ifndef RXECTL_NETDEV_H
#define RXECTL_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifndef IF_NAMESIZE
#define IF_NAMESIZE 16		/* as in <net/if.h>, which clashes with <linux/if.h> */
#endif
#include <netinet/in.h>
#include <arpa/inet.h>

struct netdev_ctx;

/* 0 or negative errno. */
int netdev_open(struct netdev_ctx **out);
void netdev_close(struct netdev_ctx *nd);

struct netdev_info {
	int ifindex;
	char name[IF_NAMESIZE];
	unsigned int mtu;
	unsigned int flags;		/* IFF_UP, IFF_RUNNING, IFF_LOWER_UP, ... */
	bool carrier;
	char operstate[16];		/* "up", "down", "lowerlayerdown", "unknown", ... */
	char kind[32];			/* "veth", "dummy", "bridge", ... or "" */
	char master[IF_NAMESIZE];	/* "" when none */
	int link_ifindex;		/* IFLA_LINK: a VLAN's real device; 0 when none */
	char link[IF_NAMESIZE];		/* its name; "" when none or gone */
	unsigned char hwaddr[32];
	unsigned int hwaddr_len;
};

/* Fresh queries (no cache), so callers can poll.  -ENODEV when absent. */
int netdev_get_by_name(struct netdev_ctx *nd, const char *name, struct netdev_info *out);
int netdev_get_by_index(struct netdev_ctx *nd, int ifindex, struct netdev_info *out);

/* The largest MTU the netdev accepts (IFLA_MAX_MTU).  -ENOENT when the kernel does not say,
 * -ENODEV when there is no such netdev. */
int netdev_max_mtu(const char *name, unsigned int *max_mtu);

/* Set the netdev's MTU (RTM_NEWLINK/SETLINK): 0, -ENODEV, -EPERM, -EINVAL (out of its range). */
int netdev_set_mtu(struct netdev_ctx *nd, int ifindex, unsigned int mtu);

/*
 * The parsers of rtnetlink replies, apart from the sockets (tests/fuzz/fuzz_netdev.c feeds them
 * any bytes): a whole RTM_GETLINK reply of `len` bytes to its IFLA_MAX_MTU (-EBADMSG when
 * malformed, -ENOENT when absent, the kernel's error); one RTM_NEWLINK message (nlmsg_len
 * bytes readable) to a netdev_info and its master's index (0: none), -ENOENT when it holds no
 * link; one RTM_NEWADDR message to the IPv4/IPv6 addresses of `ifindex` in it (*out malloc'd).
 */
struct nlmsghdr;
int netdev_parse_max_mtu(const void *buf, size_t len, unsigned int *max_mtu);
int netdev_parse_link_msg(const struct nlmsghdr *nlh, struct netdev_info *out, int *master);

struct netdev_addr {
	int family;			/* AF_INET or AF_INET6 */
	unsigned char addr[16];		/* network byte order; 4 bytes used for AF_INET */
	unsigned int prefixlen;
	int scope;			/* RT_SCOPE_UNIVERSE, RT_SCOPE_LINK, ... */
	char str[INET6_ADDRSTRLEN];
};

int netdev_parse_addr_msg(const struct nlmsghdr *nlh, int ifindex, struct netdev_addr **out,
			  size_t *n);

/* Addresses on one interface; *out is malloc'd (free() it). */
int netdev_get_addrs(struct netdev_ctx *nd, int ifindex, struct netdev_addr **out, size_t *n);

/*
 * Change notifications (for `rxectl monitor`): a non-blocking rtnetlink
 * socket in the link, IPv4 and IPv6 address groups.  netdev_events_open()
 * returns the fd or a negative errno; netdev_events_drain() reads every
 * pending message and returns how many there were, or -ENOBUFS when the
 * kernel dropped some (the caller must then assume anything changed).
 * Callers re-read the state they care about rather than parse messages.
 */
int netdev_events_open(void);
int netdev_events_drain(int fd);

#endif
