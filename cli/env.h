/* SPDX-License-Identifier: GPL-2.0 */
/* env.h - `rxectl env`'s model: what each RDMA framework must be told about one device, as data. */
#ifndef RXECTL_ENV_H
#define RXECTL_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The frameworks `env --for` knows, in the order `--for all` prints them. */
enum env_fw {
	ENV_UCX, ENV_NCCL, ENV_OPENMPI, ENV_LIBFABRIC, ENV_PERFTEST, ENV_QPERF, ENV_RPING,
	ENV_CEPH, ENV_SPDK,
	ENV_FW_COUNT
};

/* What one device offers an application; filled by cmd_env.c from the GID code (diag.h). */
struct env_target {
	const char *device;		/* "rxe_eth0" */
	unsigned int port;		/* 1 */
	const char *netdev;		/* "eth0" */
	int gid_index;			/* the RoCE v2 GID for the netdev's address family */
	const uint8_t *gid_raw;		/* its 16 bytes */
	const char *gid;		/* its text, "::ffff:192.0.2.1" */
	const char *ip;			/* the address it maps to, "192.0.2.1" */
	int ip_family;			/* AF_INET or AF_INET6 */
	unsigned int active_mtu;	/* bytes */
};

enum env_kind {
	ENV_VAR,	/* an environment variable the framework reads: NAME=VALUE */
	ENV_ARGS,	/* rxectl's own shell variable holding a tool's arguments: RXE_..._ARGS */
	ENV_CMD,	/* a command line (NAME: "server", "client", ...); SERVER stands for the peer */
	ENV_CONF,	/* a configuration file line: NAME = VALUE (ceph.conf) */
};

struct env_item {
	enum env_kind kind;
	char name[40];
	char value[200];
};

/* The framework called `name` ("ucx", ...); ENV_FW_COUNT for "all"; -1 if none. */
int env_framework_parse(const char *name);
const char *env_framework_name(enum env_fw fw);
/* One line saying what the framework is and how it reads these settings. */
const char *env_framework_title(enum env_fw fw);

/* The settings of framework `fw` for `t`: up to `max` items into `out`; returns how many. */
size_t env_items(const struct env_target *t, enum env_fw fw, struct env_item *out, size_t max);

/*
 * `value` quoted for a POSIX shell into buf: as is when it holds only characters that need no
 * quoting ([A-Za-z0-9_@%+=:,./-]), else in single quotes with each ' written '\''.  Returns
 * buf, or NULL when buf is too small.
 */
char *env_shell_quote(const char *value, char *buf, size_t len);

#endif
