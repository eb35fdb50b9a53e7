/* SPDX-License-Identifier: GPL-2.0 */
/* stats.h - an rxe device's counters (RDMA netlink STAT_GET): read, compare, explain errors. */
#ifndef RXECTL_STATS_H
#define RXECTL_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "rdma_nl.h"
#include "rxectl.h"

struct rxe_dev;

struct rxe_stats {
	int err;			/* 0, or why there are none (negative errno) */
	struct rdma_stat v[RDMA_NL_MAX_STATS];
	size_t n;
};

/* Read the counters of port 1 of `d`.  Returns st->err; -EINVAL/-EOPNOTSUPP mean the
 * driver keeps no counters (the bundled rxe today). */
int rxe_stats_read(struct rxectl *ctx, const struct rxe_dev *d, struct rxe_stats *st);
/* Value of `name` in st, or 0 (found: *found true). */
unsigned long long rxe_stats_value(const struct rxe_stats *st, const char *name, bool *found);
/* Is `name` an error counter (loss, sequence errors, RNR, retries)? */
bool rxe_stats_is_error(const char *name);
/* The likely cause of an error counter growing, a sentence fragment; NULL if not an error. */
const char *rxe_stats_cause(const char *name);
/* True when `err` from rxe_stats_read() means "this driver keeps no counters". */
bool rxe_stats_unsupported(int err);

#endif
