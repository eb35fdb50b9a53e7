// SPDX-License-Identifier: GPL-2.0
/* test_config.c - rxe.conf parsing: good files, and every error names the file and line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "tap.h"

static char last_msg[1024];

static void capture(int level, const char *msg, void *arg)
{
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

static int parse(const char *text, struct rxe_conf *conf)
{
	last_msg[0] = '\0';
	return config_parse_string(text, "test.conf", conf);
}

int main(void)
{
	struct rxe_conf c;
	int r;

	log_set_sink(capture, NULL);
	tap_plan(32);

	r = parse("# two netdevs\n[eth0]\n\n[eth1]\nname = roce1 ; inline comment\n", &c);
	ok(r == 0, "a good file parses");
	ok(c.n == 2, "it declares two netdevs");
	ok(c.n == 2 && !strcmp(c.entries[0].netdev, "eth0") && !strcmp(c.entries[0].name, "rxe_eth0"),
	   "a section without keys gets the default name rxe_<netdev>");
	ok(c.n == 2 && !strcmp(c.entries[1].name, "roce1"), "name = sets the device name");
	ok(c.n == 2 && c.entries[0].line == 2 && c.entries[1].line == 4,
	   "each entry remembers the line of its section");
	ok(config_find_netdev(&c, "eth1") == &c.entries[1], "config_find_netdev finds a netdev");
	ok(config_find_name(&c, "rxe_eth0") == &c.entries[0], "config_find_name finds a device name");
	ok(config_find_netdev(&c, "eth9") == NULL, "an undeclared netdev is not found");
	config_free(&c);

	r = parse("", &c);
	ok(r == 0 && c.n == 0, "an empty file declares nothing");
	config_free(&c);

	r = parse("[eth0]\nthis line is wrong\n", &c);
	ok(r == -EINVAL, "a line that is not key = value is an error");
	ok(strstr(last_msg, "test.conf:2:") != NULL, "the error names file and line 2 (got: %s)",
	   last_msg);
	ok(c.n == 0 && c.entries == NULL, "a malformed file yields no entries");

	r = parse("[eth0]\nname = a\n[eth1\n", &c);
	ok(r == -EINVAL && strstr(last_msg, "test.conf:3:"), "an unclosed [section is an error at its line");

	r = parse("[eth0]\nspeed = 1500\n", &c);
	ok(r == -EINVAL, "an unknown key is an error");
	ok(strstr(last_msg, "test.conf:2:") && strstr(last_msg, "unknown key 'speed'"),
	   "the error names the line and the key (got: %s)", last_msg);

	r = parse("[eth0]\nmtu = 9000\n[eth1]\n", &c);
	ok(r == 0 && c.entries[0].mtu == 9000 && c.entries[0].mtu_line == 2 && c.entries[1].mtu == 0,
	   "mtu = 9000 is read with its line; a section without it leaves the MTU alone");
	ok(c.driver == RXE_DRIVER_AUTO && !c.tune && !c.global_line,
	   "without [global]: driver auto, tune no");
	config_free(&c);

	r = parse("[global]\ndriver = bundled\ntune = yes\n[eth0]\n", &c);
	ok(r == 0 && c.driver == RXE_DRIVER_BUNDLED && c.tune && c.global_line == 1 && c.n == 1,
	   "[global] driver = bundled, tune = yes are read, and [global] declares no netdev");
	{
		struct rxe_conf copy;

		ok(config_copy(&copy, &c) == 0 && copy.n == 1 && copy.driver == RXE_DRIVER_BUNDLED &&
		   copy.entries != c.entries && !strcmp(copy.entries[0].netdev, "eth0") &&
		   !strcmp(copy.path, c.path), "config_copy copies entries and [global]");
		config_free(&copy);
	}
	config_free(&c);

	r = parse("[global]\ndriver = stock\ntune = no\n", &c);
	ok(r == 0 && c.driver == RXE_DRIVER_KERNEL && !c.tune && c.n == 0,
	   "driver = stock is the kernel's driver; tune = no");
	config_free(&c);

	r = parse("[global]\ndriver = kernel\n[eth0]\nmtu = 70000\n", &c);
	ok(r == -EINVAL && strstr(last_msg, "test.conf:4:") && strstr(last_msg, "576 to 65535") &&
	   c.driver == RXE_DRIVER_AUTO && c.global_line == 0,
	   "an MTU out of range is an error naming the range, and the result is left empty (got: %s)",
	   last_msg);

	r = parse("[this-name-is-far-too-long]\n", &c);
	ok(r == -EINVAL, "a netdev name longer than 15 characters is an error");
	ok(strstr(last_msg, "test.conf:1:") && strstr(last_msg, "this-name-is-far-too-long"),
	   "the error names the line and the bad netdev name (got: %s)", last_msg);

	r = parse("[eth0]\n[bad name]\n", &c);
	ok(r == -EINVAL && strstr(last_msg, "test.conf:2:"), "whitespace in a netdev name is an error at its line");

	r = parse("[eth0]\nname = bad%name\n", &c);
	ok(r == -EINVAL && strstr(last_msg, "test.conf:2:") && strstr(last_msg, "bad%name"),
	   "an invalid device name is an error naming it (got: %s)", last_msg);

	r = parse("name = x\n[eth0]\n", &c);
	ok(r == -EINVAL && strstr(last_msg, "test.conf:1:") && strstr(last_msg, "before any"),
	   "a key before any section is an error (got: %s)", last_msg);

	r = parse("[eth0]\n[eth1]\n[eth0]\n", &c);
	ok(r == -EINVAL && strstr(last_msg, "test.conf:3:") && strstr(last_msg, "twice"),
	   "a netdev declared twice is an error at the second (got: %s)", last_msg);

	r = parse("[eth0]\nname = a\nname = b\n", &c);
	ok(r == -EINVAL && strstr(last_msg, "test.conf:3:"), "name set twice is an error");

	r = parse("[eth0]\nname = same\n[eth1]\nname = same\n", &c);
	ok(r == -EINVAL && strstr(last_msg, "test.conf:3:") && strstr(last_msg, "same"),
	   "two netdevs asking for one device name is an error (got: %s)", last_msg);

	r = parse("[eth0]\nspeed = 1\nbroken\n", &c);
	ok(r == -EINVAL && strstr(last_msg, "test.conf:2:"), "the first of several errors is reported");

	r = config_load("/nonexistent/rxe.conf", &c);
	ok(r == -ENOENT, "a missing file is -ENOENT, for the caller to judge");
	ok(last_msg[0] == '\0' || strstr(last_msg, "test.conf"), "and nothing is printed for it");

	{
		FILE *f = fopen("/tmp/rxectl-test.conf", "w");

		fputs("\xEF\xBB\xBF[eth0]\nname = r0\n", f);
		fclose(f);
		r = config_load("/tmp/rxectl-test.conf", &c);
		ok(r == 0 && c.n == 1 && !strcmp(c.entries[0].name, "r0"),
		   "a file on disk (with a UTF-8 BOM) loads");
		config_free(&c);
		remove("/tmp/rxectl-test.conf");
	}
	return tap_done();
}
