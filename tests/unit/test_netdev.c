// SPDX-License-Identifier: GPL-2.0
/* test_netdev.c - netdev.c's rtnetlink reply parsers on messages built as the kernel sends them. */
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include "netdev.h"
#include "tap.h"

static char buf[4096] __attribute__((aligned(4)));

static struct nlmsghdr *newlink(bool with_max)
{
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	static const unsigned char mac[6] = { 2, 0, 0, 0, 0, 9 };

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = 7;
	ifi->ifi_flags = IFF_UP | IFF_RUNNING;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "eth9");
	mnl_attr_put_u32(nlh, IFLA_MTU, 9000);
	if (with_max)
		mnl_attr_put_u32(nlh, IFLA_MAX_MTU, 9216);
	mnl_attr_put_u32(nlh, IFLA_MASTER, 3);
	mnl_attr_put_u8(nlh, IFLA_CARRIER, 1);
	mnl_attr_put(nlh, IFLA_ADDRESS, sizeof(mac), mac);
	return nlh;
}

int main(void)
{
	struct netdev_info info;
	struct netdev_addr *addrs = NULL;
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;
	unsigned int max;
	size_t n = 0;
	int master = -1;

	tap_plan(11);

	nlh = newlink(true);
	ok(netdev_parse_max_mtu(buf, nlh->nlmsg_len, &max) == 0 && max == 9216,
	   "IFLA_MAX_MTU is read from a RTM_NEWLINK reply (got %u)", max);
	ok(netdev_parse_max_mtu(buf, nlh->nlmsg_len - 1, &max) == -EBADMSG,
	   "a reply shorter than its nlmsg_len is malformed");
	nlh = newlink(false);
	ok(netdev_parse_max_mtu(buf, nlh->nlmsg_len, &max) == -ENOENT && max == 0,
	   "a link without IFLA_MAX_MTU: -ENOENT");

	ok(netdev_parse_link_msg(nlh, &info, &master) == 0, "a RTM_NEWLINK message parses");
	ok(!strcmp(info.name, "eth9") && info.ifindex == 7 && info.mtu == 9000,
	   "name, index and MTU (got %s %d %u)", info.name, info.ifindex, info.mtu);
	ok(master == 3 && info.carrier && (info.flags & IFF_UP) && info.hwaddr_len == 6 &&
	   info.hwaddr[5] == 9, "master index, carrier, flags and hardware address");

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = -ENODEV;
	ok(netdev_parse_max_mtu(buf, nlh->nlmsg_len, &max) == -ENODEV,
	   "the kernel's error is returned (no such netdev)");
	ok(netdev_parse_link_msg(nlh, &info, &master) != 0, "an error message holds no link");

	{
		struct ifaddrmsg *ifa;
		unsigned char a4[4] = { 192, 0, 2, 1 };

		memset(buf, 0, sizeof(buf));
		nlh = mnl_nlmsg_put_header(buf);
		nlh->nlmsg_type = RTM_NEWADDR;
		ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
		ifa->ifa_family = AF_INET;
		ifa->ifa_prefixlen = 24;
		ifa->ifa_index = 5;
		mnl_attr_put(nlh, IFA_LOCAL, 4, a4);
		mnl_attr_put(nlh, IFA_ADDRESS, 4, a4);
	}
	ok(netdev_parse_addr_msg(nlh, 5, &addrs, &n) == 0 && n == 1 &&
	   !strcmp(addrs[0].str, "192.0.2.1") && addrs[0].prefixlen == 24,
	   "a RTM_NEWADDR message gives the address of its netdev (got %zu %s)", n,
	   n ? addrs[0].str : "");
	free(addrs);
	addrs = NULL;
	ok(netdev_parse_addr_msg(nlh, 6, &addrs, &n) == 0 && n == 0,
	   "an address of another netdev is left out");
	free(addrs);
	nlh->nlmsg_len = 8;
	ok(netdev_parse_link_msg(nlh, &info, &master) == -EINVAL,
	   "a message shorter than its header is refused");
	return tap_done();
}
