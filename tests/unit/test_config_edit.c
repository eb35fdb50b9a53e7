// SPDX-License-Identifier: GPL-2.0
/* test_config_edit.c - enable/disable edit rxe.conf: comments and other sections kept, atomic replace. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "config.h"
#include "config_edit.h"
#include "log.h"
#include "tap.h"

static char *out;
static bool changed;

static const char *enable(const char *text, const char *netdev, const char *name)
{
	free(out);
	out = NULL;
	if (config_text_enable(text, netdev, name, &out, &changed))
		return "(error)";
	return out;
}

static const char *disable(const char *text, const char *netdev)
{
	free(out);
	out = NULL;
	if (config_text_disable(text, netdev, &out, &changed))
		return "(error)";
	return out;
}

static const char *set_key(const char *text, const char *netdev, const char *key,
			   const char *value)
{
	int err;

	free(out);
	out = NULL;
	err = config_text_set_key(text, netdev, key, value, &out, &changed);
	if (err == -ENOENT)
		return "(no section)";
	if (err)
		return "(error)";
	return out;
}

static bool parses(const char *text)
{
	struct rxe_conf c;
	int r = config_parse_string(text, "t.conf", &c);

	if (r == 0)
		config_free(&c);
	return r == 0;
}

static void quiet(int level, const char *msg, void *arg)
{
}

/* Number of entries in dir whose name starts with prefix. */
static int count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

int main(void)
{
	const char *commented = "# rxe.conf: keep this comment\n"
				"; and this one\n"
				"\n"
				"[eth1]\n"
				"name = roce1 ; inline comment\n";
	char dir[] = "/tmp/rxectl-test-XXXXXX", path[128], *text = NULL;
	struct stat st;
	size_t len;

	log_set_sink(quiet, NULL);
	tap_plan(34);

	/* enable */
	ok(!strcmp(enable("", "eth0", NULL), "[eth0]\n") && changed,
	   "enable on an empty file writes just the section");
	ok(!strcmp(enable("", "eth0", "roce0"), "[eth0]\nname = roce0\n"),
	   "enable --name writes the name key");
	ok(!strcmp(enable(commented, "eth0", NULL),
		      "# rxe.conf: keep this comment\n; and this one\n\n[eth1]\n"
		      "name = roce1 ; inline comment\n\n[eth0]\n"),
	   "enable appends a new section after a blank line, keeping comments and other sections");
	ok(parses(out), "the result still parses");
	ok(!strcmp(enable("[eth1]", "eth0", NULL), "[eth1]\n\n[eth0]\n"),
	   "enable adds the missing newline at the end of the file first");
	ok(!strcmp(enable(commented, "eth1", NULL), commented) && !changed,
	   "enable of a declared netdev without --name changes nothing");
	ok(!strcmp(enable(commented, "eth1", "roce1"), commented) && !changed,
	   "enable with the name it already has changes nothing");
	ok(!strcmp(enable(commented, "eth1", "other"),
		      "# rxe.conf: keep this comment\n; and this one\n\n[eth1]\nname = other\n") &&
	   changed, "enable --name replaces the name key of a declared netdev");
	ok(!strcmp(enable("[eth1]\n# about eth1\n[eth2]\n", "eth1", "r1"),
		      "[eth1]\nname = r1\n# about eth1\n[eth2]\n"),
	   "enable --name adds the key right after the header when the section has none");
	ok(!strcmp(enable("[ eth1 ]\n", "eth1", NULL), "[ eth1 ]\n") && !changed,
	   "a header with spaces inside the brackets is the same netdev");

	/* disable */
	ok(!strcmp(disable(commented, "eth1"), "# rxe.conf: keep this comment\n; and this one\n") &&
	   changed, "disable of the only section leaves the comments at the top");
	ok(!strcmp(disable(commented, "eth0"), commented) && !changed,
	   "disable of an undeclared netdev changes nothing");
	ok(!strcmp(disable("# top\n\n[eth0]\nname = a\n\n[eth1]\nname = b\n\n[eth2]\n", "eth1"),
		       "# top\n\n[eth0]\nname = a\n\n[eth2]\n"),
	   "disable of a middle section keeps its neighbours and one blank line between them");
	ok(!strcmp(disable("[eth0]\nname = a\n# eth1 is the uplink\n[eth1]\n", "eth0"),
		       "# eth1 is the uplink\n[eth1]\n"),
	   "disable keeps the comment right before the next section");
	ok(!strcmp(disable("[eth0]\n[eth1]\nname = b\n", "eth0"), "[eth1]\nname = b\n"),
	   "disable of the first section");
	ok(!strcmp(disable("[eth0]\nfuture_key = 1\nname = a\n", "eth0"), ""),
	   "disable removes keys it does not know, too");
	ok(parses(disable("# top\n\n[eth0]\nname = a\n\n[eth1]\nname = b\n", "eth0")),
	   "the result still parses");
	text = strdup(disable(commented, "eth1"));
	ok(!strcmp(enable(text, "eth1", "roce1"),
		      "# rxe.conf: keep this comment\n; and this one\n\n[eth1]\nname = roce1\n"),
	   "disable then enable gives back an equivalent file");

	free(text);
	text = NULL;

	/* set one key (tune --persist's mtu =) */
	{
		const char *conf = "# hosts: keep me\n[global]\ntune = yes\n\n[eth0]\t; the uplink\n"
				   "name = r0 ; inline\n# before eth1\n[eth1]\nmtu = 1500\n";

		ok(!strcmp(set_key(conf, "eth0", "mtu", "9000"),
			   "# hosts: keep me\n[global]\ntune = yes\n\n[eth0]\t; the uplink\n"
			   "mtu = 9000\nname = r0 ; inline\n# before eth1\n[eth1]\nmtu = 1500\n") &&
		   changed, "set_key adds the line right after the header, every other byte kept");
		ok(parses(out), "the result still parses");
		ok(!strcmp(set_key(conf, "eth1", "mtu", "9000"),
			   "# hosts: keep me\n[global]\ntune = yes\n\n[eth0]\t; the uplink\n"
			   "name = r0 ; inline\n# before eth1\n[eth1]\nmtu = 9000\n") && changed,
		   "set_key replaces the key's line where it is");
		ok(!strcmp(set_key(conf, "eth1", "mtu", "1500"), conf) && !changed,
		   "set_key to the value it has changes nothing");
		ok(!strcmp(set_key(conf, "eth1", "mtu", NULL),
			   "# hosts: keep me\n[global]\ntune = yes\n\n[eth0]\t; the uplink\n"
			   "name = r0 ; inline\n# before eth1\n[eth1]\n") && changed,
		   "set_key with no value removes the line");
		ok(!strcmp(set_key(conf, "eth0", "mtu", NULL), conf) && !changed,
		   "removing a key the section lacks changes nothing");
		ok(!strcmp(set_key(conf, "eth2", "mtu", "9000"), "(no section)"),
		   "set_key on an undeclared netdev is ENOENT (it declares nothing)");
		ok(!strcmp(set_key("[eth0]", "eth0", "mtu", "9000"), "[eth0]\nmtu = 9000\n"),
		   "set_key after a header without a newline at the end of the file");
	}

	/* atomic replace */
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/sub/rxe.conf", dir);
	ok(config_read_text(path, &text, &len) == -ENOENT, "reading a missing file says ENOENT");
	ok(config_write_atomic(path, "[eth0]\n") == 0, "writing creates the file and its directory");
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644, "a new file is mode 0644");
	chmod(path, 0600);
	ok(config_write_atomic(path, "[eth0]\n[eth1]\n") == 0 &&
	   config_read_text(path, &text, &len) == 0 && !strcmp(text, "[eth0]\n[eth1]\n"),
	   "rewriting replaces the contents");
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "rewriting keeps the file's mode");
	snprintf(path, sizeof(path), "%s/sub", dir);
	ok(count_files(path, ".rxe.conf.") == 0, "no temporary file is left behind");
	{
		char link[160], target[160];

		snprintf(target, sizeof(target), "%s/sub/rxe.conf", dir);
		snprintf(link, sizeof(link), "%s/link.conf", dir);
		ok(symlink(target, link) == 0 && config_write_atomic(link, "[eth9]\n") == 0 &&
		   lstat(link, &st) == 0 && S_ISLNK(st.st_mode),
		   "writing through a symlink keeps the symlink");
		free(text);
		text = NULL;
		ok(config_read_text(target, &text, &len) == 0 && !strcmp(text, "[eth9]\n"),
		   "and changes the file it points to");
		unlink(link);
		unlink(target);
	}
	rmdir(path);
	rmdir(dir);
	free(text);
	free(out);
	return tap_done();
}
