// SPDX-License-Identifier: GPL-2.0
/* fuzz_rdma_nl.c - libFuzzer: the RDMA netlink reply parsers (device, port, error with ext-ack) on any message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include "log.h"
#include "rdma_nl.h"

static void quiet(int level, const char *msg, void *arg)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rdma_dev_info dev;
	struct rdma_port_info port;
	struct nlmsghdr *nlh;
	char ack[256];
	void *buf;

	log_set_sink(quiet, NULL);
	if (size < sizeof(*nlh) || size > 65536)
		return 0;
	/* aligned and padded to 4 bytes with zeros, as a receive buffer is (libmnl reads up to
	 * the aligned end of a message) */
	buf = calloc(1, NLMSG_ALIGN(size));
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	nlh = buf;
	nlh->nlmsg_len = (uint32_t)size;	/* what the receive loop (mnl_cb_run) guarantees */
	rdma_nl_parse_dev(nlh, &dev);
	rdma_nl_parse_port(nlh, &port);
	rdma_nl_parse_error(nlh, ack, sizeof(ack));
	free(buf);
	return 0;
}
