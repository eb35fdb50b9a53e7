/* SPDX-License-Identifier: GPL-2.0 */
/* rxectl.h - the context shared by every subcommand, exit codes, the command table. */
#ifndef RXECTL_H
#define RXECTL_H

#include <stdbool.h>

#ifndef RXECTL_VERSION
#define RXECTL_VERSION "0.1.0"
#endif
#ifndef RXECTL_SYSCONFDIR
#define RXECTL_SYSCONFDIR "/etc"
#endif
#define RXECTL_DEFAULT_CONFIG RXECTL_SYSCONFDIR "/rxe/rxe.conf"

/* Exit codes: few, documented in rxectl(8) under EXIT STATUS, and tested. */
enum rxectl_exit {
	RXECTL_OK = 0,		/* success (including "nothing to do") */
	RXECTL_FAIL = 1,	/* the operation failed */
	RXECTL_USAGE = 2,	/* usage error or bad input (names, config file) */
};

struct output;
struct rdma_nl;
struct netdev_ctx;

/*
 * The one context passed to every command.  Handles to outside systems are
 * opened lazily through the ctx_*() accessors below, which print the one
 * clear sentence for the usual failures (no privilege, no RDMA netlink) and
 * return NULL; the command then returns RXECTL_FAIL.
 */
struct rxectl {
	const char *config_path;	/* -c FILE, $RXECTL_CONFIG, or the default */
	bool config_explicit;		/* the path came from -c or $RXECTL_CONFIG */
	bool json;			/* --json: output is one JSON document */
	int verbose;			/* -v count: log_debug() prints when > 0 */
	struct output *out;		/* the printer (text or JSON); see output.h */
	struct rdma_nl *rnl;		/* RDMA netlink; use ctx_rdma_nl() */
	struct netdev_ctx *nd;		/* rtnetlink (libnl-route); use ctx_netdev() */
};

/* Lazily open the RDMA netlink socket; NULL after printing why. */
struct rdma_nl *ctx_rdma_nl(struct rxectl *ctx);
/* Lazily open rtnetlink; NULL after printing why. */
struct netdev_ctx *ctx_netdev(struct rxectl *ctx);
/* Close whatever was opened. */
void ctx_release(struct rxectl *ctx);

/* Every subcommand: argv[0] is the command's name, options follow. */
typedef int (*rxectl_cmd_fn)(struct rxectl *ctx, int argc, char **argv);

struct rxectl_command {
	const char *name;
	rxectl_cmd_fn fn;
	const char *args;	/* synopsis after the name, e.g. "NETDEV [--name NAME]" */
	const char *help;	/* one line, shown by `rxectl --help` */
};

/* The dispatch table (rxectl.c), terminated by a { NULL } entry. */
extern const struct rxectl_command rxectl_commands[];

/* Print "usage: rxectl NAME ARGS" for one command to stderr or stdout. */
void rxectl_command_usage(const char *name, bool to_stdout);

int cmd_up(struct rxectl *ctx, int argc, char **argv);
int cmd_down(struct rxectl *ctx, int argc, char **argv);
int cmd_status(struct rxectl *ctx, int argc, char **argv);

#endif
