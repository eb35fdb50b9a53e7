// SPDX-License-Identifier: GPL-2.0
/* test_rdma_nl.c - RDMA netlink messages: NEWLINK/DELLINK as built, replies and errors as parsed. */
#include <errno.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "rdma_nl.h"
#include "tap.h"

struct seen {
	const char *dev, *type, *ndev;
	int n, other;
};

static int collect(const struct nlattr *a, void *data)
{
	struct seen *s = data;

	s->n++;
	switch (mnl_attr_get_type(a)) {
	case RDMA_NLDEV_ATTR_DEV_NAME:	s->dev = mnl_attr_get_str(a); break;
	case RDMA_NLDEV_ATTR_LINK_TYPE:	s->type = mnl_attr_get_str(a); break;
	case RDMA_NLDEV_ATTR_NDEV_NAME:	s->ndev = mnl_attr_get_str(a); break;
	default:			s->other++;
	}
	return MNL_CB_OK;
}

/* A PORT_GET reply as the kernel would send it, plus an attribute from the future. */
static struct nlmsghdr *port_reply(char *buf, bool with_ndev, bool with_unknown)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe_eth0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	if (with_unknown) {
		mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_MAX + 7, 0x1122334455667788ULL);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_LID, 0);	/* known to the kernel, unused by us */
	}
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_PORT_STATE, 4);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, 5);
	if (with_ndev) {
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_NDEV_INDEX, 2);
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_NDEV_NAME, "eth0");
	}
	return nlh;
}

int main(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct rdma_port_info port;
	struct rdma_dev_info dev;
	struct seen s = { 0 };
	char ack[128];

	tap_plan(22);

	nlh = rdma_nl_build_newlink(buf, sizeof(buf), 42, "rxe_eth0", "rxe", "eth0");
	ok(nlh != NULL, "a NEWLINK message is built");
	ok(nlh && nlh->nlmsg_type == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK),
	   "its type is RDMA_NL_NLDEV / RDMA_NLDEV_CMD_NEWLINK");
	ok(nlh && (nlh->nlmsg_flags & (NLM_F_REQUEST | NLM_F_ACK)) == (NLM_F_REQUEST | NLM_F_ACK),
	   "it is a request that asks for an ACK");
	ok(nlh && nlh->nlmsg_seq == 42, "it carries the sequence number");
	if (nlh)
		mnl_attr_parse(nlh, 0, collect, &s);
	ok(s.n == 3 && s.other == 0, "it has exactly three attributes");
	ok(s.dev && !strcmp(s.dev, "rxe_eth0"), "RDMA_NLDEV_ATTR_DEV_NAME is the device name");
	ok(s.type && !strcmp(s.type, "rxe"), "RDMA_NLDEV_ATTR_LINK_TYPE is \"rxe\"");
	ok(s.ndev && !strcmp(s.ndev, "eth0"), "RDMA_NLDEV_ATTR_NDEV_NAME is the netdev");
	ok(rdma_nl_build_newlink(buf, 24, 1, "rxe_eth0", "rxe", "eth0") == NULL,
	   "building into a too small buffer fails instead of overrunning it");

	nlh = rdma_nl_build_dellink(buf, sizeof(buf), 7, 3);
	ok(nlh && nlh->nlmsg_type == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_DELLINK) &&
	   mnl_attr_get_u32(mnl_nlmsg_get_payload(nlh)) == 3 &&
	   mnl_attr_get_type(mnl_nlmsg_get_payload(nlh)) == RDMA_NLDEV_ATTR_DEV_INDEX,
	   "a DELLINK message carries the device index");

	memset(buf, 0, sizeof(buf));
	nlh = port_reply(buf, true, true);
	ok(rdma_nl_parse_port(nlh, &port) == 0, "a port reply with unknown attributes parses");
	ok(port.dev_index == 3 && !strcmp(port.dev_name, "rxe_eth0") && port.port == 1,
	   "device index, name and port are read");
	ok(port.state == 4 && port.phys_state == 5, "port state and physical state are read");
	ok(port.has_ndev && port.ndev_index == 2 && !strcmp(port.ndev_name, "eth0"),
	   "the netdev is read");

	memset(buf, 0, sizeof(buf));
	nlh = port_reply(buf, false, false);
	ok(rdma_nl_parse_port(nlh, &port) == 0 && !port.has_ndev,
	   "a port without a netdev is reported as such");

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "x");
	ok(rdma_nl_parse_port(nlh, &port) == -EINVAL, "a reply without a device index is refused");

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 9);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
	mnl_attr_put_u16(nlh, RDMA_NLDEV_ATTR_MAX + 1, 7);
	ok(rdma_nl_parse_dev(nlh, &dev) == 0 && dev.index == 9 && !strcmp(dev.name, "rxe0") &&
	   dev.num_ports == 1 && !strcmp(dev.protocol, "roce"), "a device reply parses");

	/* NLMSG_ERROR with the original request capped and an extended-ACK message. */
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS;
	{
		struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

		e->error = -EEXIST;
		e->msg.nlmsg_len = sizeof(struct nlmsghdr);
	}
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "Device already exists");
	ok(rdma_nl_parse_error(nlh, ack, sizeof(ack)) == -EEXIST, "an error reply gives its errno");
	ok(!strcmp(ack, "Device already exists"), "and the extended-ACK text (got '%s')", ack);

	nlh->nlmsg_flags = 0;
	ok(rdma_nl_parse_error(nlh, ack, sizeof(ack)) == -EEXIST && ack[0] == '\0',
	   "without NLM_F_ACK_TLVS there is no text");

	ok(!strcmp(rdma_port_state_str(4), "ACTIVE") && !strcmp(rdma_port_state_str(1), "DOWN"),
	   "port states are named like rdma(8) names them");
	ok(!strcmp(rdma_phys_state_str(5), "LINK_UP") && !strcmp(rdma_phys_state_str(200), "UNKNOWN"),
	   "physical states are named, unknown values too");
	return tap_done();
}
