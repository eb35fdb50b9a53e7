// SPDX-License-Identifier: GPL-2.0
/* test_names.c - netdev and RDMA device name validation, and the default device name. */
#include <string.h>

#include "names.h"
#include "tap.h"

int main(void)
{
	char buf[64];

	tap_plan(16);
	ok(!netdev_name_invalid("eth0"), "eth0 is a valid netdev name");
	ok(!netdev_name_invalid("enp0s31f6.100"), "a VLAN-style name with a dot is valid");
	ok(!netdev_name_invalid("abcdefghijklmno"), "15 characters is the longest valid netdev name");
	ok(netdev_name_invalid("abcdefghijklmnop") != NULL, "16 characters is too long for a netdev");
	ok(netdev_name_invalid("") != NULL, "an empty netdev name is invalid");
	ok(netdev_name_invalid("a b") != NULL, "whitespace is invalid in a netdev name");
	ok(netdev_name_invalid("a/b") != NULL, "'/' is invalid in a netdev name");
	ok(netdev_name_invalid("a:b") != NULL, "':' is invalid in a netdev name");
	ok(netdev_name_invalid("..") != NULL, "'..' is not a netdev name");
	ok(!ibdev_name_invalid("rxe_eth0"), "rxe_eth0 is a valid device name");
	ok(ibdev_name_invalid("rxe%d") != NULL, "'%%' (a kernel name template) is refused");
	ok(ibdev_name_invalid("rxe eth0") != NULL, "whitespace is invalid in a device name");
	memset(buf, 'a', 63);
	buf[63] = '\0';
	ok(!ibdev_name_invalid(buf), "63 characters is the longest valid device name");
	ok(default_ibdev_name("eth0", buf, sizeof(buf)) == 0 && !strcmp(buf, "rxe_eth0"),
	   "the default device name of eth0 is rxe_eth0");
	ok(default_ibdev_name("abcdefghijklmno", buf, sizeof(buf)) == 0 &&
	   !ibdev_name_invalid(buf), "the default name of a 15-character netdev is valid");
	ok(default_ibdev_name("eth0", buf, 6) < 0, "a too small buffer is reported, not overrun");
	return tap_done();
}
