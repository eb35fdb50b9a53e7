// SPDX-License-Identifier: GPL-2.0
/* test_rxe.c - the recommended GID index and the readiness rule of `up`. */
#include <string.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>

#include "rxe.h"
#include "tap.h"

static struct verbs_gid gid(unsigned int index, enum gid_type type, const char *ip)
{
	struct verbs_gid g = { .index = index, .type = type };

	if (strchr(ip, ':')) {
		inet_pton(AF_INET6, ip, g.raw);
	} else {
		g.raw[10] = g.raw[11] = 0xff;
		inet_pton(AF_INET, ip, g.raw + 12);
	}
	verbs_gid_format(&g);
	return g;
}

static struct netdev_addr addr(const char *ip, int scope)
{
	struct netdev_addr a = { .scope = scope };

	a.family = strchr(ip, ':') ? AF_INET6 : AF_INET;
	inet_pton(a.family, ip, a.addr);
	strcpy(a.str, ip);
	return a;
}

int main(void)
{
	struct verbs_gid gids[6];
	struct netdev_addr addrs[3];
	struct rxe_dev d = { .name = "rxe_eth0", .netdev = "eth0", .port = 1, .state = 4 };
	struct rxe_details det = { 0 };
	char why[256];

	tap_plan(14);
	gids[0] = gid(0, GID_TYPE_ROCE_V1, "fe80::1");
	gids[1] = gid(1, GID_TYPE_ROCE_V2, "fe80::1");
	gids[2] = gid(2, GID_TYPE_ROCE_V1, "192.0.2.1");
	gids[3] = gid(3, GID_TYPE_ROCE_V2, "192.0.2.1");
	gids[4] = gid(4, GID_TYPE_ROCE_V1, "2001:db8::1");
	gids[5] = gid(5, GID_TYPE_ROCE_V2, "2001:db8::1");
	addrs[0] = addr("fe80::1", RT_SCOPE_LINK);
	addrs[1] = addr("2001:db8::1", RT_SCOPE_UNIVERSE);
	addrs[2] = addr("192.0.2.1", RT_SCOPE_UNIVERSE);

	ok(!strcmp(gids[3].ip, "192.0.2.1") && gids[3].ip_family == AF_INET,
	   "an IPv4-mapped GID maps to its IPv4 address");
	ok(!strcmp(gids[3].gid, "::ffff:192.0.2.1"), "and is printed as ::ffff:a.b.c.d");
	ok(!strcmp(gids[5].ip, "2001:db8::1"), "an IPv6 GID maps to itself");
	ok(!strcmp(gid_type_str(gids[1].type), "RoCE v2") && !strcmp(gid_type_str(gids[0].type), "RoCE v1"),
	   "GID types are spelled 'RoCE v1' and 'RoCE v2'");
	ok(rxe_recommend_gid(gids, 6, addrs, 3) == 3, "the RoCE v2 GID of the IPv4 address is recommended");
	ok(rxe_recommend_gid(gids, 6, addrs, 2) == 5, "without IPv4, the global IPv6 one is");
	ok(rxe_recommend_gid(gids, 6, addrs, 1) == 1, "with only a link-local address, that one is");
	ok(rxe_recommend_gid(gids, 6, addrs, 0) == -1, "no address of the netdev: no recommendation");
	ok(rxe_recommend_gid(gids, 1, addrs, 3) == -1, "a RoCE v1 GID is never recommended");

	det.have_verbs = det.have_netdev = true;
	det.port.gids = gids;
	det.port.n_gids = 6;
	det.addrs = addrs;
	det.n_addrs = 3;
	strcpy(det.netdev.name, "eth0");
	det.netdev.flags = IFF_UP;
	det.netdev.carrier = true;
	det.gid_index = 3;
	ok(rxe_ready(&d, &det, why, sizeof(why)), "ACTIVE with the IPv4 RoCE v2 GID is ready");
	det.gid_index = 1;
	ok(!rxe_ready(&d, &det, why, sizeof(why)) && strstr(why, "IPv4"),
	   "only the link-local GID while eth0 has IPv4 is not ready (%s)", why);
	det.gid_index = 3;
	d.state = 1;
	det.netdev.flags = 0;
	ok(!rxe_ready(&d, &det, why, sizeof(why)) && strstr(why, "ip link set eth0 up"),
	   "a DOWN port on a down netdev says how to bring it up (%s)", why);
	d.state = 4;
	det.n_addrs = 0;
	ok(!rxe_ready(&d, &det, why, sizeof(why)) && strstr(why, "ip addr add"),
	   "no IP address says how to add one (%s)", why);
	det.n_addrs = 3;
	det.have_verbs = false;
	ok(!rxe_ready(&d, &det, why, sizeof(why)) && strstr(why, "ib_uverbs"),
	   "no libibverbs view says what to check (%s)", why);
	return tap_done();
}
