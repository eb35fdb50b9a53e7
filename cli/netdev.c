// SPDX-License-Identifier: GPL-2.0
/* netdev.c - network interfaces over rtnetlink with libnl-route-3: links and addresses. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/addr.h>
#include <libmnl/libmnl.h>
#include <time.h>

#include "netdev.h"

struct netdev_ctx {
	struct nl_sock *sock;
};

static int nlerr(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:			return 0;
	case NLE_OBJ_NOTFOUND:
	case NLE_NODEV:		return -ENODEV;
	case NLE_PERM:		return -EPERM;
	case NLE_NOMEM:		return -ENOMEM;
	case NLE_INVAL:		return -EINVAL;
	case NLE_RANGE:		return -ERANGE;
	case NLE_NOACCESS:	return -EACCES;
	case NLE_PROTO_MISMATCH:
	case NLE_OPNOTSUPP:	return -EOPNOTSUPP;
	default:		return -EIO;
	}
}

int netdev_open(struct netdev_ctx **out)
{
	struct netdev_ctx *nd = calloc(1, sizeof(*nd));
	int err;

	if (!nd)
		return -ENOMEM;
	nd->sock = nl_socket_alloc();
	if (!nd->sock) {
		free(nd);
		return -ENOMEM;
	}
	err = nl_connect(nd->sock, NETLINK_ROUTE);
	if (err < 0) {
		nl_socket_free(nd->sock);
		free(nd);
		return nlerr(err);
	}
	*out = nd;
	return 0;
}

void netdev_close(struct netdev_ctx *nd)
{
	if (!nd)
		return;
	nl_socket_free(nd->sock);
	free(nd);
}

static int get_link(struct netdev_ctx *nd, int ifindex, const char *name, struct rtnl_link **link)
{
	int err = rtnl_link_get_kernel(nd->sock, ifindex, name, link);

	return err < 0 ? nlerr(err) : 0;
}

/* What a link object says, but the master's name (that takes another query): its index. */
static int fill_from_link(struct rtnl_link *link, struct netdev_info *out)
{
	struct nl_addr *hw;
	const char *kind, *name;

	memset(out, 0, sizeof(*out));
	out->ifindex = rtnl_link_get_ifindex(link);
	name = rtnl_link_get_name(link);
	snprintf(out->name, sizeof(out->name), "%s", name ? name : "");
	out->mtu = rtnl_link_get_mtu(link);
	out->flags = rtnl_link_get_flags(link);
	out->carrier = rtnl_link_get_carrier(link) > 0;
	rtnl_link_operstate2str(rtnl_link_get_operstate(link), out->operstate, sizeof(out->operstate));
	/* libnl spells them "up", "down", ...; the kernel's IF_OPER_* are all we rely on. */
	kind = rtnl_link_get_type(link);
	snprintf(out->kind, sizeof(out->kind), "%s", kind ? kind : "");
	out->link_ifindex = rtnl_link_get_link(link);
	hw = rtnl_link_get_addr(link);
	if (hw && nl_addr_get_len(hw) <= sizeof(out->hwaddr)) {
		out->hwaddr_len = nl_addr_get_len(hw);
		memcpy(out->hwaddr, nl_addr_get_binary_addr(hw), out->hwaddr_len);
	}
	return rtnl_link_get_master(link);
}

static void fill_info(struct netdev_ctx *nd, struct rtnl_link *link, struct netdev_info *out)
{
	int master = fill_from_link(link, out);

	if (master > 0) {
		struct rtnl_link *m;

		if (get_link(nd, master, NULL, &m) == 0) {
			snprintf(out->master, sizeof(out->master), "%s", rtnl_link_get_name(m));
			rtnl_link_put(m);
		}
	}
	if (out->link_ifindex > 0 && out->link_ifindex != out->ifindex) {
		struct rtnl_link *l;

		if (get_link(nd, out->link_ifindex, NULL, &l) == 0) {
			snprintf(out->link, sizeof(out->link), "%s", rtnl_link_get_name(l));
			rtnl_link_put(l);
		}
	}
}

/* One rtnetlink message to libnl objects of its kind, as a receive of libnl would parse it. */
static int parse_msg(const struct nlmsghdr *nlh, void (*cb)(struct nl_object *, void *), void *arg)
{
	struct nl_msg *msg;
	int err;

	if (nlh->nlmsg_len < NLMSG_HDRLEN)
		return -EINVAL;
	msg = nlmsg_convert((struct nlmsghdr *)nlh);
	if (!msg)
		return -ENOMEM;
	nlmsg_set_proto(msg, NETLINK_ROUTE);
	err = nl_msg_parse(msg, cb, arg);
	nlmsg_free(msg);
	return err < 0 ? nlerr(err) : 0;
}

struct link_parse {
	struct netdev_info *out;
	int master;
	bool found;
};

static void link_cb(struct nl_object *obj, void *arg)
{
	struct link_parse *lp = arg;

	if (lp->found || strcmp(nl_object_get_type(obj), "route/link"))
		return;
	lp->master = fill_from_link((struct rtnl_link *)obj, lp->out);
	lp->found = true;
}

int netdev_parse_link_msg(const struct nlmsghdr *nlh, struct netdev_info *out, int *master)
{
	struct link_parse lp = { .out = out };
	int err = parse_msg(nlh, link_cb, &lp);

	if (err < 0)
		return err;
	if (!lp.found)
		return -ENOENT;
	*master = lp.master;
	return 0;
}

int netdev_set_mtu(struct netdev_ctx *nd, int ifindex, unsigned int mtu)
{
	struct rtnl_link *orig, *change;
	int err;

	err = get_link(nd, ifindex, NULL, &orig);
	if (err < 0)
		return err;
	change = rtnl_link_alloc();
	if (!change) {
		rtnl_link_put(orig);
		return -ENOMEM;
	}
	rtnl_link_set_mtu(change, mtu);
	err = rtnl_link_change(nd->sock, orig, change, 0);
	rtnl_link_put(change);
	rtnl_link_put(orig);
	return err < 0 ? nlerr(err) : 0;
}

int netdev_get_by_name(struct netdev_ctx *nd, const char *name, struct netdev_info *out)
{
	struct rtnl_link *link;
	int err;

	if (!name || !*name || strlen(name) >= IF_NAMESIZE)
		return -EINVAL;
	err = get_link(nd, 0, name, &link);
	if (err < 0)
		return err;
	fill_info(nd, link, out);
	rtnl_link_put(link);
	return 0;
}

int netdev_get_by_index(struct netdev_ctx *nd, int ifindex, struct netdev_info *out)
{
	struct rtnl_link *link;
	int err;

	if (ifindex <= 0)
		return -ENODEV;
	err = get_link(nd, ifindex, NULL, &link);
	if (err < 0)
		return err;
	fill_info(nd, link, out);
	rtnl_link_put(link);
	return 0;
}

struct addr_walk {
	int ifindex;
	struct netdev_addr *v;
	size_t n, cap;
	int err;
};

static void addr_cb(struct nl_object *obj, void *arg)
{
	struct rtnl_addr *a = (struct rtnl_addr *)obj;
	struct addr_walk *w = arg;
	struct nl_addr *local;
	struct netdev_addr *e;
	int family;

	if (w->err || strcmp(nl_object_get_type(obj), "route/addr") ||
	    rtnl_addr_get_ifindex(a) != w->ifindex)
		return;
	family = rtnl_addr_get_family(a);
	if (family != AF_INET && family != AF_INET6)
		return;
	local = rtnl_addr_get_local(a);
	if (!local || nl_addr_get_len(local) != (family == AF_INET ? 4u : 16u))
		return;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 8;
		void *p = realloc(w->v, cap * sizeof(*w->v));

		if (!p) {
			w->err = -ENOMEM;
			return;
		}
		w->v = p;
		w->cap = cap;
	}
	e = &w->v[w->n++];
	memset(e, 0, sizeof(*e));
	e->family = family;
	memcpy(e->addr, nl_addr_get_binary_addr(local), nl_addr_get_len(local));
	e->prefixlen = rtnl_addr_get_prefixlen(a);
	e->scope = rtnl_addr_get_scope(a);
	inet_ntop(family, e->addr, e->str, sizeof(e->str));
}

int netdev_parse_addr_msg(const struct nlmsghdr *nlh, int ifindex, struct netdev_addr **out,
			  size_t *n)
{
	struct addr_walk w = { .ifindex = ifindex };
	int err = parse_msg(nlh, addr_cb, &w);

	if (!err)
		err = w.err;
	if (err) {
		free(w.v);
		return err;
	}
	*out = w.v;
	*n = w.n;
	return 0;
}

int netdev_get_addrs(struct netdev_ctx *nd, int ifindex, struct netdev_addr **out, size_t *n)
{
	struct addr_walk w = { .ifindex = ifindex };
	struct nl_cache *cache;
	int err = rtnl_addr_alloc_cache(nd->sock, &cache);

	if (err < 0)
		return nlerr(err);
	nl_cache_foreach(cache, addr_cb, &w);
	nl_cache_free(cache);
	if (w.err) {
		free(w.v);
		return w.err;
	}
	*out = w.v;
	*n = w.n;
	return 0;
}

int netdev_events_open(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR,
	};
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int netdev_events_drain(int fd)
{
	char buf[16384];
	int n = 0;

	for (;;) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return n;
			return -errno;	/* -ENOBUFS: the kernel dropped some */
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)r);
		     h = NLMSG_NEXT(h, r))
			n++;
	}
}

int netdev_parse_max_mtu(const void *buf, size_t len, unsigned int *max_mtu)
{
	const struct nlmsghdr *nlh = buf;
	const struct nlattr *attr;
	int err = -ENOENT;

	*max_mtu = 0;
	/* mnl_nlmsg_ok() compares nlmsg_len as an int: a length over 2 GiB would pass it */
	if (len > INT_MAX || len < sizeof(*nlh) || nlh->nlmsg_len > len ||
	    !mnl_nlmsg_ok(nlh, (int)len))
		return -EBADMSG;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

		if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e))
			return -EBADMSG;
		return e->error < 0 && e->error > -4096 ? e->error : -ENOENT;
	}
	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifinfomsg))
		return -EBADMSG;
	mnl_attr_for_each(attr, nlh, sizeof(struct ifinfomsg)) {
		if (mnl_attr_get_type(attr) == IFLA_MAX_MTU &&
		    mnl_attr_validate(attr, MNL_TYPE_U32) == 0) {
			*max_mtu = mnl_attr_get_u32(attr);
			err = 0;
		}
	}
	return err;
}

/* IFLA_MAX_MTU (libnl-route has no getter for it): one RTM_GETLINK over libmnl. */
int netdev_max_mtu(const char *name, unsigned int *max_mtu)
{
	char buf[16384];
	struct mnl_socket *sock;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	unsigned int seq = (unsigned int)time(NULL);
	ssize_t n;
	int err = -ENOENT;

	*max_mtu = 0;
	sock = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!sock)
		return -errno;
	if (mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto out;
	}
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	if (mnl_socket_sendto(sock, nlh, nlh->nlmsg_len) < 0) {
		err = -errno;
		goto out;
	}
	n = mnl_socket_recvfrom(sock, buf, sizeof(buf));
	if (n < 0) {
		err = -errno;
		goto out;
	}
	err = netdev_parse_max_mtu(buf, (size_t)n, max_mtu);
out:
	mnl_socket_close(sock);
	return err;
}
