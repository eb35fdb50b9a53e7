/* SPDX-License-Identifier: GPL-2.0 */
/* config.h - /etc/rxe/rxe.conf: one [NETDEV] section per netdev, see rxe.conf(5) and config_line.h. */
#ifndef RXECTL_CONFIG_H
#define RXECTL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#ifndef IF_NAMESIZE
#define IF_NAMESIZE 16		/* as in <net/if.h>, which clashes with <linux/if.h> */
#endif
#include "driver.h"
#include "rdma_nl.h"

/* The section of settings for the whole file; no netdev section may have this name. */
#define RXE_CONF_GLOBAL "global"
/* The range of `mtu =`: the smallest MTU every IPv4 host must take, the largest an IP
 * packet can be.  The netdev's own limits are checked when `up` sets it. */
#define RXE_CONF_MTU_MIN 576
#define RXE_CONF_MTU_MAX 65535

struct rxe_conf_entry {
	char netdev[IF_NAMESIZE];		/* the section name */
	char name[RXE_IBDEV_NAME_MAX];		/* `name =`, default rxe_<netdev> */
	unsigned int line;			/* line of the [section] header */
	bool name_given;			/* `name =` was in the section */
	unsigned int mtu;			/* `mtu =`, 0 when not given (left as it is) */
	unsigned int mtu_line;			/* its line, for messages */
};

struct rxe_conf {
	char *path;				/* as given, for messages */
	struct rxe_conf_entry *entries;
	size_t n;
	/* [global] */
	enum rxe_driver_choice driver;		/* `driver =`, default auto */
	bool tune;				/* `tune = yes`: up applies `rxectl tune`'s values */
	unsigned int global_line;		/* line of [global], 0 when there is none */
};

/*
 * Parse the whole file before anything acts on it.  Returns 0, -ENOENT
 * when the file does not exist (nothing printed: the caller decides),
 * -EINVAL after printing "rxectl: FILE:LINE: <what is wrong>" via log, or
 * another -errno (a directory: -EISDIR, a FIFO, device or socket: -ESPIPE, unreadable,
 * over 1 MiB: -EFBIG) after printing why.  On error *conf is left empty.
 */
int config_load(const char *path, struct rxe_conf *conf);
/* Same on `len` bytes of text (NUL bytes in it are errors); `label` stands in for the file name. */
int config_parse_buf(const char *text, size_t len, const char *label, struct rxe_conf *conf);
/* Same on a C string. */
int config_parse_string(const char *text, const char *label, struct rxe_conf *conf);
/*
 * The whole file into a malloc'd NUL-terminated string of *len bytes (which may hold NULs:
 * the parser reports them).  -ENOENT if missing, -EISDIR, -ESPIPE when not a regular file (a
 * FIFO is never waited on), -EFBIG over RXE_CONF_FILE_MAX (exactly that many bytes are read), or
 * -errno.
 */
int config_read_text(const char *path, char **text, size_t *len);
/* "rxectl: cannot read PATH: why." for an error of config_read_text() other than -ENOENT. */
void config_report_read_error(const char *path, int err);
void config_free(struct rxe_conf *conf);
/* A deep copy of `src` into `dst` (config_free() it): 0 or -ENOMEM. */
int config_copy(struct rxe_conf *dst, const struct rxe_conf *src);

const struct rxe_conf_entry *config_find_netdev(const struct rxe_conf *conf, const char *netdev);
const struct rxe_conf_entry *config_find_name(const struct rxe_conf *conf, const char *name);

#endif
