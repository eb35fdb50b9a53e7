/* SPDX-License-Identifier: GPL-2.0 */
/* doctor.h - `rxectl doctor`: the check list, its printer, and the pure rules behind the checks. */
#ifndef RXECTL_DOCTOR_H
#define RXECTL_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "firewall.h"
#include "rxectl.h"

enum check_status { CHECK_PASS, CHECK_WARN, CHECK_FAIL, CHECK_SKIP };

/* One finding: a stable id (see CHECKS in rxectl(8)), its status, what it
 * looked at (a netdev or device name, or NULL for the whole system), one
 * sentence saying what was found, and the fix (NULL when nothing to fix). */
struct check {
	const char *id;
	enum check_status status;
	char *target;
	char *summary;
	char *fix;
};

struct checklist {
	struct check *v;
	size_t n, cap;
};

/* Append one check; summary and fix are printf formats (fix may be NULL). */
void check_add(struct checklist *l, const char *id, enum check_status st, const char *target,
	       const char *fix, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Set the fix of the last check added (printf format). */
void check_fix(struct checklist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void checklist_free(struct checklist *l);
/* The overall result: "fail" if any check failed, else "warn" if any warned, else "pass". */
enum check_status checklist_result(const struct checklist *l);
const char *check_status_str(enum check_status st);
/* Print the whole list through ctx->out: {"checks":[...],"result":...} or a checklist. */
void checklist_print(struct rxectl *ctx, const struct checklist *l);

/*
 * The RoCE active MTU (bytes) rdma_rxe derives from a netdev MTU: the largest
 * IB MTU (256..4096) that fits in the netdev MTU minus rxe's 80 bytes of
 * headers (RXE_MAX_HDR_LENGTH); 256 when even that does not fit.
 */
unsigned int roce_mtu_for_netdev_mtu(unsigned int netdev_mtu);
/* The smallest netdev MTU that gives a RoCE active MTU of 4096 (4176). */
unsigned int netdev_mtu_for_roce_4096(void);

/* RLIMIT_MEMLOCK below this (bytes) and finite is "small". */
#define MEMLOCK_SMALL (64ull << 20)
/* "unlimited", "64 KiB", "8 MiB", ... */
void memlock_str(uint64_t bytes, bool infinite, char *buf, size_t len);

/* counters.errors (doctor_counters.c): sample the device's error counters for a moment and
 * warn, naming the likely cause, when they grow. */
struct rxe_dev;
void doctor_check_counters(struct rxectl *ctx, struct checklist *l, const struct rxe_dev *dev);

/*
 * Run every check for the given targets (netdev or device names; none: every
 * configured netdev and every rxe device) and print them.  Returns the exit
 * code: RXECTL_OK, RXECTL_FAIL, or RXECTL_USAGE for a bad name.
 */
int doctor_run(struct rxectl *ctx, char **targets, int n_targets);
/* Where doctor_run_in() checks from: detect, or as told (doctor --host, --container). */
enum doctor_where { DOCTOR_AUTO, DOCTOR_HOST, DOCTOR_CONTAINER };
int doctor_run_in(struct rxectl *ctx, char **targets, int n_targets, enum doctor_where where);

#endif
