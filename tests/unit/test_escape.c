// SPDX-License-Identifier: GPL-2.0
/* test_escape.c - untrusted text printed without control characters; tools run without a shell and inherit no descriptor of ours. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "config_edit.h"
#include "escape.h"
#include "log.h"
#include "netdev.h"
#include "output.h"
#include "run_tool.h"
#include "tap.h"

static char last_msg[1024];

static void capture(int level, const char *msg, void *arg)
{
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

int main(void)
{
	char buf[64], small[8], dir[] = "/tmp/rxectl-esc-XXXXXX", path[64];
	struct netdev_ctx *nd = NULL;
	int status, lock_fd, ev_fd;
	char *out;

	tap_plan(21);

	ok(!strcmp(str_escape("rxe0\x1b[31mred\x07\n", buf, sizeof(buf)), "rxe0\\x1b[31mred\\x07\\x0a"),
	   "ESC, BEL and newline become \\xNN (got %s)", buf);
	ok(!strcmp(str_escape("tab\there\x7f", buf, sizeof(buf)), "tab\\x09here\\x7f"),
	   "tab and DEL are escaped too (got %s)", buf);
	ok(!strcmp(str_escape("rxe@br\\x2dlan.service \xc3\xa9", buf, sizeof(buf)),
		   "rxe@br\\x2dlan.service \xc3\xa9"), "backslashes and UTF-8 pass unchanged");
	ok(!strcmp(str_escape("abcd\x1b" "ef", small, sizeof(small)), "abcd") && strlen(small) < 8,
	   "a result that does not fit is cut before an escape, never inside it (got %s)", small);
	ok(str_needs_escape("a\rb") && !str_needs_escape("plain text"), "str_needs_escape");

	/* JSON is UTF-8: what is not becomes \xNN, what is passes (issue 37) */
	{
		static const struct { const char *in, *want; } u[] = {
			{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
			{ "r\xff\xfe", "r\\xff\\xfe" },
			{ "e\x80th\xc0\xaf", "e\\x80th\\xc0\\xaf" },		/* lone continuation, overlong '/' */
			{ "\xed\xa0\x80!", "\\xed\\xa0\\x80!" },		/* a UTF-16 surrogate */
			{ "\xf4\x90\x80\x80 \xe2\x82", "\\xf4\\x90\\x80\\x80 \\xe2\\x82" },	/* > U+10FFFF, cut */
		};

		for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
			char *e = str_utf8_escape(u[i].in);

			ok(e && !strcmp(e, u[i].want) &&
			   str_utf8_valid(u[i].in) == !strcmp(u[i].in, u[i].want) && str_utf8_valid(e),
			   "UTF-8 case %zu: got %s", i, e ? e : "NULL");
			free(e);
		}
	}

	log_set_sink(capture, NULL);
	log_error(1, "peer says '%s'", "evil\x1b]0;title\x07");
	ok(!strcmp(last_msg, "peer says 'evil\\x1b]0;title\\x07'"),
	   "log messages are escaped on their way out (got %s)", last_msg);

	{
		/* every text line (status, ping's peer facts, the listener's client line...) is
		 * printed by out_text(): what is formatted in cannot reach the terminal raw */
		char *text = NULL;
		size_t size = 0;
		FILE *mem = open_memstream(&text, &size);
		struct output *o = output_new(false, mem);

		out_text(o, "%-8s %s\n", "device", "evil\x1b]0;title\x07\r");
		out_text(o, "\t%s\n", "tab\tand\nnewline of the caller's own layout pass");
		output_free(o);
		fclose(mem);
		ok(text && !strcmp(text, "device   evil\\x1b]0;title\\x07\\x0d\n"
				   "\ttab\tand\nnewline of the caller's own layout pass\n"),
		   "text output escapes control characters but newline and tab (got %s)",
		   str_escape(text ? text : "NULL", buf, sizeof(buf)));
		free(text);
		text = NULL;
		mem = open_memstream(&text, &size);
		o = output_new(true, mem);
		out_text(o, "%s\n", "json output has no text lines");
		output_free(o);
		fclose(mem);
		ok(text && !*text, "with --json, text lines are not printed");
		free(text);
	}
	{
		const char *const argv[] = { "/bin/echo", "a;echo b", "$(id)", NULL };

		out = spawn_capture(argv, &status);
		ok(out && !strcmp(out, "a;echo b $(id)\n") && status == 0,
		   "a tool's arguments reach it as they are: no shell (got %s)",
		   str_escape(out ? out : "NULL", buf, sizeof(buf)));
		free(out);
	}
	{
		const char *const argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };

		out = spawn_capture(argv, &status);
		ok(out && !strcmp(out, "out\n") && status == 3,
		   "stdout is captured, stderr is not, the exit status is returned");
		free(out);
	}
	{
		const char *const argv[] = { "/nonexistent/nft", NULL };

		out = spawn_capture(argv, &status);
		ok(status != 0, "a tool that does not exist is a failure (status %d)", status);
		free(out);
	}

	/* Descriptors rxectl holds while it runs tools: none may leak into them.  (Whatever this
	 * test inherited from its own parent is marked close-on-exec first.) */
	for (int fd = 3; fd < 1024; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/rxe.conf", dir);
	lock_fd = config_lock(path);
	ok(lock_fd >= 0, "the config lock is taken");
	ev_fd = netdev_events_open();
	ok(ev_fd >= 0, "an rtnetlink event socket is open");
	ok(netdev_open(&nd) == 0, "a libnl rtnetlink socket is open");
	{
		const char *const argv[] = { "/bin/ls", "/proc/self/fd", NULL };
		char want[16];

		out = spawn_capture(argv, &status);
		/* ls itself opens one directory: 3 */
		snprintf(want, sizeof(want), "0\n1\n2\n3\n");
		ok(out && !strcmp(out, want), "a tool inherits only stdin, stdout and stderr (got %s)",
		   str_escape(out ? out : "NULL", buf, sizeof(buf)));
		free(out);
	}
	ok(!str_needs_escape("") && !strcmp(str_escape("", buf, sizeof(buf)), ""), "empty string");
	netdev_close(nd);
	close(ev_fd);
	close(lock_fd);
	rmdir(dir);
	return tap_done();
}
