// SPDX-License-Identifier: GPL-2.0
/* test_config_grammar.c - one table of rxe.conf texts run against the reader and the editor: both take the same language. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_edit.h"
#include "log.h"
#include "tap.h"

static char last_msg[1024];

static void capture(int level, const char *msg, void *arg)
{
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

struct row {
	const char *what;
	const char *text;
	size_t len;		/* 0: strlen(text) */
	unsigned int err_line;	/* 0: the text is valid */
	const char *want;	/* valid: "netdev=name ..." as the reader sees it; error: in the message */
};

/* "netdev=name netdev=name" */
static void describe(const struct rxe_conf *c, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < c->n && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s=%s", i ? " " : "",
					c->entries[i].netdev, c->entries[i].name);
}

static char long_comment[400], long_line[1200], many_lines[20000];

static int check_reader(const struct row *r)
{
	char got[512], where[32];
	struct rxe_conf c;
	int ret;

	last_msg[0] = '\0';
	ret = config_parse_buf(r->text, r->len ? r->len : strlen(r->text), "g.conf", &c);
	if (!r->err_line) {
		describe(&c, got, sizeof(got));
		ok(ret == 0 && !strcmp(got, r->want), "reader: %s (got '%s' %s)", r->what, got,
		   last_msg);
		if (ret == 0)
			config_free(&c);
		return 0;
	}
	snprintf(where, sizeof(where), "g.conf:%u: ", r->err_line);
	ok(ret == -EINVAL && c.n == 0 && strstr(last_msg, where) && strstr(last_msg, r->want),
	   "reader: %s is an error at line %u naming '%s' (got: %s)", r->what, r->err_line,
	   r->want, last_msg);
	return 0;
}

/* The editor finds exactly the sections the reader sees, in every valid text of the table. */
static void check_editor(const struct row *r)
{
	struct rxe_conf before, after;
	bool agree = true, changed;
	char *out, want[512], got[512];

	if (config_parse_string(r->text, "g.conf", &before) < 0)
		return;
	for (size_t i = 0; i < before.n; i++) {
		const char *nd = before.entries[i].netdev;
		size_t off = 0;

		/* disable: the reader sees every other netdev, unchanged */
		want[0] = '\0';
		for (size_t j = 0; j < before.n; j++)
			if (j != i)
				off += (size_t)snprintf(want + off, sizeof(want) - off, "%s%s=%s",
							off ? " " : "", before.entries[j].netdev,
							before.entries[j].name);
		if (config_text_disable(r->text, nd, &out, &changed) ||
		    config_parse_string(out, "g.conf", &after) < 0) {
			agree = false;
			continue;
		}
		describe(&after, got, sizeof(got));
		if (strcmp(got, want) || !changed) {
			diag_fail:
			printf("# %s: disable %s gives '%s', want '%s'\n", r->what, nd, got, want);
			agree = false;
		}
		config_free(&after);
		free(out);

		/* enable --name: the reader sees the new name on that netdev only */
		if (config_text_enable(r->text, nd, "renamed", &out, &changed) ||
		    config_parse_string(out, "g.conf", &after) < 0) {
			agree = false;
			continue;
		}
		if (after.n != before.n || strcmp(after.entries[i].name, "renamed") ||
		    strcmp(after.entries[i].netdev, nd)) {
			describe(&after, got, sizeof(got));
			snprintf(want, sizeof(want), "%s=renamed in place", nd);
			config_free(&after);
			free(out);
			goto diag_fail;
		}
		config_free(&after);
		free(out);

		/* set mtu (tune --persist): the reader sees it on that netdev only, names kept */
		if (config_text_set_key(r->text, nd, "mtu", "9000", &out, &changed) ||
		    config_parse_string(out, "g.conf", &after) < 0) {
			agree = false;
			continue;
		}
		for (size_t j = 0; j < after.n; j++)
			if (after.n != before.n || strcmp(after.entries[j].name, before.entries[j].name) ||
			    after.entries[j].mtu != (j == i ? 9000 : before.entries[j].mtu)) {
				printf("# %s: mtu = 9000 under [%s] changes [%s]\n", r->what, nd,
				       after.entries[j].netdev);
				agree = false;
			}
		config_free(&after);
		free(out);
	}
	/* enable of a new netdev: one more section, at the end */
	if (config_text_enable(r->text, "new0", NULL, &out, &changed) == 0) {
		if (config_parse_string(out, "g.conf", &after) == 0) {
			if (after.n != before.n + 1 || strcmp(after.entries[before.n].netdev, "new0"))
				agree = false;
			config_free(&after);
		} else {
			agree = false;
		}
		free(out);
	}
	ok(agree, "editor agrees with the reader: %s", r->what);
	config_free(&before);
}

int main(void)
{
	const struct row rows[] = {
		{ "a plain file", "[eth0]\nname = r0\n[eth1]\n", 0, 0, "eth0=r0 eth1=rxe_eth1" },
		{ "a 200-byte comment holding 'name = evil' stays a comment", long_comment, 0, 0,
		  "eth0=rxe_eth0" },
		{ "a line over 1024 bytes", long_line, 0, 3, "longer than 1024 bytes" },
		{ "an error on line 1000 of a long file", many_lines, 0, 1000, "'name' is set twice" },
		{ "text after a section header", "[eth0] junk\n", 0, 1, "only a comment may follow" },
		{ "a comment after a section header", "[eth0] # uplink\n[eth1]; x\n", 0, 0,
		  "eth0=rxe_eth0 eth1=rxe_eth1" },
		{ "'name : x' (a colon)", "[eth0]\nname : rxe0\n", 0, 2, "not ':'" },
		{ "'[[eth1]]'", "[[eth1]]\n", 0, 1, "may not contain '['" },
		{ "'[eth1' without ']'", "[eth0]\n[eth1\n", 0, 2, "closing ']'" },
		{ "'[]'", "[ ]\n", 0, 1, "needs a netdev name" },
		{ "a space inside a section name", "[eth 0]\n", 0, 1, "white space" },
		{ "an indented line is not a continuation", "[eth0]\nname = r0\n  more\n", 0, 3,
		  "neither a [NETDEV] section header nor" },
		{ "indented headers and keys", "  [eth0]\n\tname = r0\n", 0, 0, "eth0=r0" },
		{ "a NUL byte", "[eth0]\nna\0me = x\n", 18, 2, "NUL byte" },
		{ "a NUL byte in a comment", "[eth0]\n# a\0b\n", 13, 2, "NUL byte" },
		{ "[vlan@x]: its default device name is invalid", "[eth0]\n[vlan@x]\n\n", 0, 2,
		  "default device name of [vlan@x], rxe_vlan@x," },
		{ "[vlan@x] with a name", "[vlan@x]\nname = v1\n", 0, 0, "vlan@x=v1" },
		{ "CRLF line ends", "[eth0]\r\nname = r0\r\n", 0, 0, "eth0=r0" },
		{ "a UTF-8 byte order mark", "\xEF\xBB\xBF[eth0]\n", 0, 0, "eth0=rxe_eth0" },
		{ "no newline at the end", "[eth0]\nname=r0", 0, 0, "eth0=r0" },
		{ "inline comments after a value", "[eth0]\nname = r0 # c\n[eth1]\nname = r1 ; c\n",
		  0, 0, "eth0=r0 eth1=r1" },
		{ "';' without white space is part of the value", "[eth0]\nname = r0;x\n", 0, 2,
		  "'r0;x' may only contain" },
		{ "a value with a space", "[eth0]\nname = a b\n", 0, 2, "'a b' may only contain" },
		{ "an empty value", "[eth0]\nname =\n", 0, 2, "is empty" },
		{ "a lone '='", "[eth0]\n= x\n", 0, 2, "neither a [NETDEV]" },
		{ "a key before any section", "name = x\n", 0, 1, "before any [NETDEV]" },
		{ "an unknown key", "[eth0]\nspeed = 9000\n", 0, 2, "unknown key 'speed'" },
		{ "[global] and mtu", "[global]\ndriver = bundled\ntune = yes\n\n[eth0]\nmtu = 9000\n"
		  "[eth1]\nname = r1\nmtu=1500\n", 0, 0, "eth0=rxe_eth0 eth1=r1" },
		{ "[global] after a netdev", "[eth0]\n[global]\ndriver = auto\n", 0, 0, "eth0=rxe_eth0" },
		{ "[global] alone", "[ global ]\ntune = no\n", 0, 0, "" },
		{ "an MTU below 576", "[eth0]\nmtu = 100\n", 0, 2, "'100' is not an MTU" },
		{ "an MTU above 65535", "[eth0]\nmtu = 65536\n", 0, 2, "'65536' is not an MTU" },
		{ "an MTU with a unit", "[eth0]\nmtu = 9k\n", 0, 2, "'9k' is not an MTU" },
		{ "a signed MTU", "[eth0]\nmtu = +9000\n", 0, 2, "'+9000' is not an MTU" },
		{ "mtu twice", "[eth0]\nmtu = 9000\nmtu = 1500\n", 0, 3, "'mtu' is set twice" },
		{ "an unknown driver", "[global]\ndriver = mine\n", 0, 2, "is not a driver" },
		{ "tune = maybe", "[global]\ntune = maybe\n", 0, 2, "'maybe' is not yes or no" },
		{ "[global] twice", "[global]\n[eth0]\n[global]\n", 0, 3, "[global] is there twice" },
		{ "driver in a netdev section", "[eth0]\ndriver = bundled\n", 0, 2,
		  "'driver' belongs in the [global] section" },
		{ "mtu in [global]", "[global]\nmtu = 9000\n", 0, 2, "'mtu' belongs in a [NETDEV]" },
		{ "an unknown key in [global]", "[global]\nfoo = 1\n", 0, 2,
		  "unknown key 'foo' in [global]" },
		{ "a key before [global]", "tune = yes\n[global]\n", 0, 1, "before any [NETDEV]" },
		{ "only comments and blanks", "# a\n; b\n\n   \n", 0, 0, "" },
	};
	size_t n = sizeof(rows) / sizeof(rows[0]);
	size_t off, valid = 0;

	/* a comment line 2 of 200 + bytes: the old INI library read it in 200-byte pieces */
	off = (size_t)snprintf(long_comment, sizeof(long_comment), "[eth0]\n# ");
	memset(long_comment + off, 'x', 196);
	snprintf(long_comment + off + 196, sizeof(long_comment) - off - 196, " name = evil\n");
	off = (size_t)snprintf(long_line, sizeof(long_line), "[eth0]\n# fine\n# ");
	memset(long_line + off, 'y', 1100);
	long_line[off + 1100] = '\0';
	off = (size_t)snprintf(many_lines, sizeof(many_lines), "[eth0]\nname = a\n");
	for (int i = 3; i < 1000; i++)
		off += (size_t)snprintf(many_lines + off, sizeof(many_lines) - off, "# line %d\n", i);
	snprintf(many_lines + off, sizeof(many_lines) - off, "name = b\n");

	log_set_sink(capture, NULL);
	for (size_t i = 0; i < n; i++)
		valid += !rows[i].err_line;
	tap_plan((int)(n + valid));
	for (size_t i = 0; i < n; i++)
		check_reader(&rows[i]);
	for (size_t i = 0; i < n; i++)
		if (!rows[i].err_line)
			check_editor(&rows[i]);
	return tap_done();
}
