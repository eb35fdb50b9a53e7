// SPDX-License-Identifier: GPL-2.0
/* doctor_counters.c - doctor's counters.errors: do a device's error counters grow right now? */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "doctor.h"
#include "rxe.h"
#include "stats.h"

/* How long the sample lasts: long enough to see a lossy flow, short enough for a doctor. */
#define SAMPLE_MS 1000

void doctor_check_counters(struct rxectl *ctx, struct checklist *l, const struct rxe_dev *dev)
{
	struct rxe_stats a, b;
	struct timespec ts = { SAMPLE_MS / 1000, (SAMPLE_MS % 1000) * 1000000L };
	char grew[512] = "";
	const char *worst = NULL;
	unsigned long long worst_delta = 0;

	if (rxe_stats_read(ctx, dev, &a) < 0) {
		if (rxe_stats_unsupported(a.err))
			check_add(l, "counters.errors", CHECK_SKIP, dev->name, NULL,
				  "skipped: %s has no counters (its driver keeps none: an old "
				  "build of the bundled rdma_rxe?).", dev->name);
		else
			check_add(l, "counters.errors", CHECK_SKIP, dev->name, NULL,
				  "skipped: the counters of %s cannot be read (%s).", dev->name,
				  strerror(-a.err));
		return;
	}
	nanosleep(&ts, NULL);
	if (rxe_stats_read(ctx, dev, &b) < 0) {
		check_add(l, "counters.errors", CHECK_SKIP, dev->name, NULL,
			  "skipped: %s went away during the sample.", dev->name);
		return;
	}
	for (size_t i = 0; i < b.n; i++) {
		bool found;
		unsigned long long before = rxe_stats_value(&a, b.v[i].name, &found);
		unsigned long long d = found && b.v[i].value >= before ? b.v[i].value - before : 0;
		size_t len = strlen(grew);

		if (!d || !rxe_stats_is_error(b.v[i].name))
			continue;
		snprintf(grew + len, sizeof(grew) - len, "%s%s +%llu", len ? ", " : "",
			 b.v[i].name, d);
		if (d > worst_delta) {
			worst_delta = d;
			worst = b.v[i].name;
		}
	}
	if (!worst) {
		check_add(l, "counters.errors", CHECK_PASS, dev->name, NULL,
			  "no error counter of %s grew during a %d ms sample.", dev->name, SAMPLE_MS);
		return;
	}
	check_add(l, "counters.errors", CHECK_WARN, dev->name, NULL,
		  "error counters of %s grew during a %d ms sample (%s); the likely cause of %s: %s.",
		  dev->name, SAMPLE_MS, grew, worst, rxe_stats_cause(worst));
	check_fix(l, "watch them with `rxectl stats %s --watch 1` while you fix the cause; "
		  "`rxectl doctor` checks the MTU (mtu.active) and the firewall (firewall.udp4791).",
		  dev->name);
}
