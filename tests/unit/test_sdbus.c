// SPDX-License-Identifier: GPL-2.0
/* test_sdbus.c - the rxe@ unit name of a netdev is escaped as systemd-escape(1) does. */
#include <errno.h>
#include <string.h>

#include "sdbus.h"
#include "tap.h"

static const char *unit(const char *netdev)
{
	static char buf[128];

	if (sdbus_rxe_unit(netdev, buf, sizeof(buf)) < 0)
		return "(error)";
	return buf;
}

int main(void)
{
	char small[12];

	tap_plan(6);
	ok(!strcmp(unit("eth0"), "rxe@eth0.service"), "a plain name is used as it is");
	ok(!strcmp(unit("br-lan"), "rxe@br\\x2dlan.service"), "'-' becomes \\x2d");
	ok(!strcmp(unit("eth0.100"), "rxe@eth0.100.service"), "a '.' inside the name stays");
	ok(!strcmp(unit(".x"), "rxe@\\x2ex.service"), "a leading '.' is escaped");
	ok(!strcmp(unit("a_b:c"), "rxe@a_b:c.service"), "'_' and ':' stay");
	ok(sdbus_rxe_unit("eth0", small, sizeof(small)) == -ENAMETOOLONG,
	   "a buffer too small is -ENAMETOOLONG");
	return tap_done();
}
