/* SPDX-License-Identifier: GPL-2.0 */
/* tap.h - a tiny TAP producer for the C unit tests: plan, ok(), exit status. */
#ifndef RXECTL_TAP_H
#define RXECTL_TAP_H

#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

#define tap_plan(n) printf("1..%d\n", (n))

/* ok(cond, "name") prints one TAP line; a failure also names the file:line. */
#define ok(cond, ...) do {							\
	int ok_c_ = !!(cond);							\
	printf("%sok %d - ", ok_c_ ? "" : "not ", ++tap_n);			\
	printf(__VA_ARGS__);							\
	printf("\n");								\
	if (!ok_c_) {								\
		tap_failed++;							\
		printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);	\
	}									\
} while (0)

static inline int tap_done(void)
{
	if (tap_failed)
		printf("# %d of %d tests failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}

#endif
