// SPDX-License-Identifier: GPL-2.0
/* holders.h - the processes that have an RDMA device open (its uverbs character device). */
#ifndef RXECTL_HOLDERS_H
#define RXECTL_HOLDERS_H

#include <stddef.h>

/*
 * Find the processes holding `ibdev`'s /dev/infiniband/uverbsN open and write them to `buf` as
 * "PID (comm), PID (comm)", at most `max` of them (then ", ..."). Returns how many were found
 * (all of them, not only those listed): 0 if none, or the device has no uverbs node, or /proc
 * cannot be read.
 */
int holders_of(const char *ibdev, char *buf, size_t len, int max);

#endif
