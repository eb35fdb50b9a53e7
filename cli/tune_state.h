/* SPDX-License-Identifier: GPL-2.0 */
/* tune_state.h - the one owner of tune.state, the record --apply and --persist leave for --revert. */
#ifndef RXECTL_TUNE_STATE_H
#define RXECTL_TUNE_STATE_H

struct rxectl;

/*
 * RUNSTATEDIR/rxectl/tune.state holds one "KEY<TAB>OLD VALUE" line per change, in the order made,
 * of two kinds:
 *   /proc/... or /sys/... <TAB> the file's value before `tune --apply` (or `tune = yes`) wrote it;
 *   rxe.conf:NETDEV:FILE  <TAB> the `mtu =` of [NETDEV] in FILE before `tune --persist` set it
 *                               ("" when there was none).
 * The first record of a key wins: a second --apply does not make its own values the ones to go
 * back to.  It lives in /run: a reboot forgets it, as it forgets what was applied (the sysctl.d
 * file and rxe.conf's `mtu =` that --persist writes are what lasts).
 */

/* The record's path, for messages. */
const char *tune_state_path(void);
/* Record the old value of a /proc or /sys file before it is written: 0 or -errno. */
int tune_state_record_value(const char *path, const char *old);
/*
 * Record the old `mtu =` of [netdev] in conf_path ("" for none) before --persist changes it:
 * RXECTL_OK, or RXECTL_FAIL after saying that the file was not changed.
 */
int tune_state_record_conf(const char *netdev, const char *conf_path, const char *old);
/*
 * --revert: restore every record, newest first (files written back, `mtu =` lines set back or
 * removed), remove the sysctl.d file --persist wrote, print what was done into ctx->out
 * ({"restored": [...], "sysctl_file_removed"}); the record is removed once all went back.
 */
int tune_revert(struct rxectl *ctx);

#endif
