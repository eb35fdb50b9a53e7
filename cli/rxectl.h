/* SPDX-License-Identifier: GPL-2.0 */
/* rxectl.h - the context shared by every subcommand, exit codes, the command table. */
#ifndef RXECTL_H
#define RXECTL_H

#include <stdbool.h>
#include <stdio.h>

#include "opts.h"

#ifndef RXECTL_SYSCONFDIR
#define RXECTL_SYSCONFDIR "/etc"
#endif
#define RXECTL_DEFAULT_CONFIG RXECTL_SYSCONFDIR "/rxe/rxe.conf"

/* Exit codes: few, documented in rxectl(8) under EXIT STATUS, and tested. */
enum rxectl_exit {
	RXECTL_OK = 0,		/* success (including "nothing to do") */
	RXECTL_FAIL = 1,	/* the operation failed */
	RXECTL_USAGE = 2,	/* usage error or bad input (names, config file) */
	RXECTL_GONE = 3,	/* up: the netdev is not there, or went away meanwhile (a normal
				 * event: rxe@.service has SuccessExitStatus=3) */
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
	bool locked;			/* lock_fd holds the creation lock (lock.h) */
	int lock_fd;
	struct rxe_conf *conf;		/* a copy of what ctx_load_config() read last, for what
					 * `up` applies (config_apply.h); NULL: none read */
};

/* Lazily open the RDMA netlink socket; NULL after printing why. */
struct rdma_nl *ctx_rdma_nl(struct rxectl *ctx);
/*
 * Open RDMA netlink if the kernel has it, loading no module and printing nothing (the doctor
 * reports it itself): 0, or the -errno of rdma_nl_open().  ctx_rdma_nl() returns it after.
 */
int ctx_rdma_nl_try(struct rxectl *ctx);
/* Lazily open rtnetlink; NULL after printing why. */
struct netdev_ctx *ctx_netdev(struct rxectl *ctx);
/*
 * Load ctx->config_path into *conf (see config.h), and keep a copy in ctx->conf.  A missing
 * default file is an empty configuration; a missing file named with -c/$RXECTL_CONFIG is
 * an error.  Returns RXECTL_OK, RXECTL_USAGE (malformed, missing, a
 * directory or unreadable; message printed) or RXECTL_FAIL (out of memory).
 */
struct rxe_conf;
int ctx_load_config(struct rxectl *ctx, struct rxe_conf *conf);
/* Drop ctx->conf. */
void ctx_forget_config(struct rxectl *ctx);
/* Close whatever was opened. */
void ctx_release(struct rxectl *ctx);

/* Every subcommand: argv[0] is the command's name, options follow. */
typedef int (*rxectl_cmd_fn)(struct rxectl *ctx, int argc, char **argv);

struct rxectl_command {
	const char *name;
	rxectl_cmd_fn fn;
	const char *args;	/* synopsis after the name, e.g. "NETDEV [--name NAME]" */
	const char *help;	/* one line, shown by `rxectl --help` */
	const struct opt_spec *opts;	/* its own options (opts.h), shown by `COMMAND --help` */
};

/* The dispatch table (commands.c), terminated by a { NULL } entry. */
extern const struct rxectl_command rxectl_commands[];
/* The table's entry of command `name`, or NULL (usage.c). */
const struct rxectl_command *rxectl_command_find(const char *name);

/* Print "usage: rxectl NAME ARGS" for one command to stdout (--help) or stderr. */
void rxectl_command_usage(const char *name, bool to_stdout);
/* Print "rxectl: <message>" and the command's usage line; returns RXECTL_USAGE. */
int rxectl_usage_error(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Turn on JSON output (global --json or a command's own --json). */
void ctx_set_json(struct rxectl *ctx);
/* Print the general help (generated from rxectl_commands) to `fp`. */
void rxectl_help(FILE *fp);
/* Was help printed to stdout (then --json adds no document after it)? */
bool rxectl_help_shown(void);

/* Each command's own options (opts.h); the global ones are in opts_global[]. */
extern const struct opt_spec cmd_up_opts[], cmd_down_opts[], cmd_enable_opts[],
	cmd_disable_opts[], cmd_ping_opts[], cmd_gid_opts[], cmd_stats_opts[],
	cmd_tune_opts[], cmd_memlock_opts[];
extern const struct opt_spec cmd_driver_opts[];
extern const struct opt_spec cmd_env_opts[];
extern const struct opt_spec cmd_cdi_opts[], cmd_doctor_opts[];

int cmd_up(struct rxectl *ctx, int argc, char **argv);
int cmd_down(struct rxectl *ctx, int argc, char **argv);
int cmd_status(struct rxectl *ctx, int argc, char **argv);
int cmd_help(struct rxectl *ctx, int argc, char **argv);
int cmd_doctor(struct rxectl *ctx, int argc, char **argv);
int cmd_test(struct rxectl *ctx, int argc, char **argv);
int cmd_gid(struct rxectl *ctx, int argc, char **argv);
int cmd_ping(struct rxectl *ctx, int argc, char **argv);
int cmd_enable(struct rxectl *ctx, int argc, char **argv);
int cmd_disable(struct rxectl *ctx, int argc, char **argv);
int cmd_monitor(struct rxectl *ctx, int argc, char **argv);
int cmd_udev_env(struct rxectl *ctx, int argc, char **argv);
int cmd_stats(struct rxectl *ctx, int argc, char **argv);
int cmd_debug(struct rxectl *ctx, int argc, char **argv);
int cmd_driver(struct rxectl *ctx, int argc, char **argv);
int cmd_tune(struct rxectl *ctx, int argc, char **argv);
int cmd_memlock(struct rxectl *ctx, int argc, char **argv);
int cmd_env(struct rxectl *ctx, int argc, char **argv);
int cmd_cdi(struct rxectl *ctx, int argc, char **argv);

#endif
