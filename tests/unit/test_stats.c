// SPDX-License-Identifier: GPL-2.0
/* test_stats.c - STAT_GET as built and parsed, the error-counter table, the driver choice words. */
#include <errno.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "driver.h"
#include "rdma_nl.h"
#include "stats.h"
#include "tap.h"

static void put_counter(struct nlmsghdr *nlh, const char *name, uint64_t v, bool with_value)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);

	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name);
	if (with_value)
		mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, v);
	mnl_attr_nest_end(nlh, e);
}

/* A STAT_GET reply as the kernel sends it for rxe, with an entry missing its value and an
 * attribute from the future. */
static struct nlmsghdr *stat_reply(char *buf, bool with_table)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlattr *t;

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_MAX + 3, 7);
	if (!with_table)
		return nlh;
	t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	put_counter(nlh, "sent_pkts", 100, true);
	put_counter(nlh, "broken", 0, false);
	put_counter(nlh, "rcvd_seq_err", 0x100000000ull, true);
	mnl_attr_nest_end(nlh, t);
	return nlh;
}

int main(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct rdma_stat st[4];
	enum rxe_driver_choice c;
	size_t n = 9;

	tap_plan(15);

	nlh = rdma_nl_build_stat_get(buf, sizeof(buf), 5, 3, 1);
	ok(nlh && nlh->nlmsg_type == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET) &&
	   (nlh->nlmsg_flags & NLM_F_DUMP) == 0, "STAT_GET is a request for one port, not a dump");
	ok(nlh && mnl_attr_get_type(mnl_nlmsg_get_payload(nlh)) == RDMA_NLDEV_ATTR_DEV_INDEX &&
	   mnl_attr_get_u32(mnl_nlmsg_get_payload(nlh)) == 3, "it names the device index");
	ok(rdma_nl_build_stat_get(buf, 20, 5, 3, 1) == NULL, "a too small buffer fails");

	nlh = stat_reply(buf, true);
	ok(rdma_nl_parse_stats(nlh, st, 4, &n) == 0, "a reply with a counter table parses");
	ok(n == 2, "the entry without a value is skipped, the unknown attribute ignored");
	ok(n == 2 && !strcmp(st[0].name, "sent_pkts") && st[0].value == 100, "name and value");
	ok(n == 2 && st[1].value == 0x100000000ull, "values are 64 bits");
	ok(rdma_nl_parse_stats(nlh, st, 1, &n) == 0 && n == 1, "no more than max are kept");
	nlh = stat_reply(buf, false);
	ok(rdma_nl_parse_stats(nlh, st, 4, &n) == -EINVAL && n == 0,
	   "a reply without a counter table is -EINVAL");

	ok(rxe_stats_is_error("rcvd_seq_err") && rxe_stats_is_error("completer_retry_err") &&
	   !rxe_stats_is_error("sent_pkts") && !rxe_stats_is_error("rdma_sends"),
	   "sequence errors and retries are error counters, traffic is not");
	ok(strstr(rxe_stats_cause("out_of_seq_request"), "MTU") != NULL,
	   "loss names the MTU, the firewall and the link");
	ok(strstr(rxe_stats_cause("rcvd_rnr_err"), "not a network problem") != NULL,
	   "RNR names the application");
	ok(rxe_stats_unsupported(-EINVAL) && !rxe_stats_unsupported(-EPERM),
	   "EINVAL means no counters, EPERM does not");

	ok(rxe_driver_choice_parse("bundled", &c) == 0 && c == RXE_DRIVER_BUNDLED &&
	   rxe_driver_choice_parse("kernel", &c) == 0 && c == RXE_DRIVER_KERNEL &&
	   rxe_driver_choice_parse("auto", &c) == 0 && c == RXE_DRIVER_AUTO,
	   "driver choices parse");
	ok(rxe_driver_choice_parse("stock", &c) == -EINVAL && rxe_driver_choice_parse("", &c) < 0,
	   "anything else is -EINVAL");
	return tap_done();
}
