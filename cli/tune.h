/* SPDX-License-Identifier: GPL-2.0 */
/* tune.h - the tunables of `rxectl tune` (and rxe.conf's `tune = yes`): gather, apply with a record, persist. */
#ifndef RXECTL_TUNE_H
#define RXECTL_TUNE_H

#include <stdbool.h>
#include <stddef.h>

struct rxectl;

#define TUNE_SYSCTL_FILE RXECTL_SYSCONFDIR "/sysctl.d/90-rxectl-tune.conf"

/* The MTU switches carry as "jumbo"; more than that rarely gets through a network. */
#define JUMBO_MTU 9000
#define MAX_TUNABLES 256

/* One tunable: a file under /proc or /sys, what it holds, and what we would write. */
struct tunable {
	char id[64];		/* "mtu", "net.core.rmem_max", "irq.24", "rps.rx-0", "governor.cpu0" */
	char path[256];
	char current[64];	/* "" when it cannot be read */
	char recommended[64];	/* "" when nothing should change */
	char why[512];
	bool sysctl;		/* goes into the sysctl.d file with --persist */
};

struct tune {
	struct tunable v[MAX_TUNABLES];
	size_t n;
	const char *netdev;
	unsigned int mtu_to;	/* the MTU recommended, 0 if none */
};

/* Read every tunable of `netdev` (kept by pointer) and what to recommend. */
void tune_gather(struct tune *t, const char *netdev);
/*
 * Write each recommended value, recording the old one first in tune.state (tune_state.h: the
 * first --apply's value is the one --revert goes back to); each change is printed into an array "changed"
 * of ctx->out.  RXECTL_OK or RXECTL_FAIL after saying what failed and that --revert helps.
 */
int tune_apply(struct rxectl *ctx, struct tune *t);
/*
 * --persist (tune_persist.c): the sysctls into TUNE_SYSCTL_FILE, and the MTU --apply set into
 * `mtu =` of the netdev's section of rxe.conf (ctx->config_path), the file edited in place as
 * `enable` edits it; a netdev without a section gets a warning naming the line instead (tune
 * does not declare netdevs).  The old `mtu =` (or its absence) is recorded in tune.state
 * (tune_state_record_conf()) for --revert, which tune_state.c does.
 */
int tune_persist(struct rxectl *ctx, struct tune *t);
/*
 * rxe.conf's `tune = yes`, for `up`: apply tune's recommendations for `netdev` but the MTU
 * (that one is `mtu =`, since both ends must carry it), recorded as --apply records them; each
 * change is said at info level, each failure as a warning: tuning never stops a device from
 * being created, so this returns RXECTL_OK.
 */
int tune_apply_for_up(struct rxectl *ctx, const char *netdev);

#endif
