/* SPDX-License-Identifier: GPL-2.0 */
/* names.h - validation of netdev and RDMA device names, and the default device name. */
#ifndef RXECTL_NAMES_H
#define RXECTL_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Both return NULL when the name is valid, or a static phrase saying what is
 * wrong ("is longer than 15 characters"), to be used as
 * "netdev name 'X' <phrase>".
 * Netdev names follow the kernel's dev_valid_name(): 1..15 characters, not
 * "." or "..", no '/', ':' or whitespace; we also require printable ASCII.
 * RDMA device names: 1..63 characters of [A-Za-z0-9_.-], not "." or "..".
 */
const char *netdev_name_invalid(const char *name);
const char *ibdev_name_invalid(const char *name);

/* "rxe_<netdev>" into buf (>= 64 bytes); -ENAMETOOLONG if it does not fit. */
int default_ibdev_name(const char *netdev, char *buf, size_t len);

#endif
