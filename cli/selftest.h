/* SPDX-License-Identifier: GPL-2.0 */
/* selftest.h - the loopback verbs self-test behind `rxectl test`: two RC QPs on one device. */
#ifndef RXECTL_SELFTEST_H
#define RXECTL_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum st_status { ST_PASS, ST_FAIL, ST_SKIP };

struct st_result {
	const char *op;		/* "send", "send_imm", "write", ... (see selftest_ops) */
	enum st_status status;
	uint64_t usec;		/* post to last completion */
	char detail[200];	/* why it failed or was skipped; the expected error for the last */
};

#define SELFTEST_MAX_OPS 8
#define SELFTEST_MSG_LEN 3000	/* longer than a 1024 or 2048 path MTU: several packets */

struct selftest {
	unsigned int path_mtu;	/* bytes */
	struct st_result r[SELFTEST_MAX_OPS];
	size_t n;
	char error[256];	/* set when the test could not be set up */
};

/*
 * Connect two RC QPs of `dev_name` port `port` to each other through GID
 * `gid_index`, and run every operation (send, send with immediate, RDMA
 * write, write with immediate, RDMA read, fetch-and-add, compare-and-swap,
 * then an RDMA write with a wrong rkey that must fail with a remote access
 * error), each verified byte for byte, each completion awaited at most
 * `timeout_ms`.  Returns 0 when it ran (see st->r for the outcome) or a
 * negative errno with st->error saying why it could not be set up.
 */
int selftest_run(const char *dev_name, unsigned int port, int gid_index, int timeout_ms,
		 struct selftest *st);

/* Why libibverbs cannot open `dev_name`: "Permission denied", "not visible to libibverbs", ...
 * Returns 0 when it can. */
int selftest_probe_open(const char *dev_name, char *why, size_t len);

#endif
