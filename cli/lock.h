/* SPDX-License-Identifier: GPL-2.0 */
/* lock.h - one lock (flock on a file in /run) so that no two rxectl processes create devices at once. */
#ifndef RXECTL_LOCK_H
#define RXECTL_LOCK_H

#include "rxectl.h"

/*
 * `rxectl up` (by hand or from rxe@.service), `rxectl enable --now` and
 * `rxectl monitor` all look for an existing device and create one while
 * holding this lock, so two of them never create two devices for one
 * netdev.  The lock is held only from "is there a device?" to "created";
 * waiting for the port to become ACTIVE happens outside it.
 *
 * The lock file is RUNSTATEDIR/rxectl.lock ($RXECTL_LOCK overrides it, for
 * tests).  rxe_lock() waits up to RXE_LOCK_WAIT seconds; it is idempotent
 * (a held lock is kept) and returns 0, or a negative errno after printing
 * why.  The lock is also released when the process exits.
 */
#define RXE_LOCK_WAIT 30

const char *rxe_lock_path(void);
int rxe_lock(struct rxectl *ctx);
/*
 * Take the lock only if it is free now: 0 (held), -EWOULDBLOCK (another
 * rxectl holds it: try again later; nothing printed), or a negative errno
 * after printing why.  For the monitor, which must not block (watchdog).
 */
int rxe_trylock(struct rxectl *ctx);
void rxe_unlock(struct rxectl *ctx);

#endif
