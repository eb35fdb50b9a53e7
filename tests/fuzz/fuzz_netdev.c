// SPDX-License-Identifier: GPL-2.0
/* fuzz_netdev.c - libFuzzer: netdev.c's rtnetlink reply parsers (IFLA_MAX_MTU over libmnl, links and addresses through libnl-route-3) on any message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include "netdev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct netdev_addr *addrs = NULL;
	struct netdev_info info;
	struct nlmsghdr *nlh;
	unsigned int max;
	size_t n = 0;
	int master;
	void *buf;

	if (size < sizeof(*nlh) || size > 65536)
		return 0;
	/* aligned and padded to 4 bytes with zeros, as a receive buffer is */
	buf = calloc(1, NLMSG_ALIGN(size));
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	/* the whole reply as received: netdev_parse_max_mtu checks nlmsg_len itself */
	netdev_parse_max_mtu(buf, size, &max);
	/* one message of the reply: what the receive loop guarantees */
	nlh = buf;
	nlh->nlmsg_len = (uint32_t)size;
	/* libnl-route picks the parser by nlmsg_type: give each its kind half of the time */
	if (netdev_parse_link_msg(nlh, &info, &master) == 0 && info.name[0])
		(void)strlen(info.name);
	if (netdev_parse_addr_msg(nlh, size > 20 ? ((const uint8_t *)buf)[20] : 1, &addrs, &n) == 0)
		free(addrs);
	free(buf);
	return 0;
}
