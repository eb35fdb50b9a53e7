/* SPDX-License-Identifier: GPL-2.0 */
/* unit_state.h - which netdev instance an rxe@ unit was started for, so that its stop spares a later one. */
#ifndef RXECTL_UNIT_STATE_H
#define RXECTL_UNIT_STATE_H

/*
 * A netdev can be deleted and re-created under the same name while the
 * rxe@ unit of the old one is still stopping.  The monitor (or `up`) may
 * already have created the device of the new netdev by the time the old
 * unit's ExecStop (`rxectl down NETDEV`) runs; deleting by name would
 * remove that new device, and nothing re-creates it.
 *
 * So `up` run by rxe@.service (which sets RXECTL_UNIT=%n; systemd sets
 * INVOCATION_ID) records the ifindex it found (0: the netdev was absent)
 * in RUNSTATEDIR/rxectl/units/UNIT, with the invocation ID.  `down` run
 * by the same invocation deletes the device only if it sits on that
 * ifindex.  Outside a unit nothing is recorded and `down` deletes by name.
 */

/* Record what `up` found for `netdev`.  No-op (0) outside a unit; 0 or a negative errno. */
int unit_state_record(const char *netdev, int ifindex);
/*
 * The ifindex this unit's invocation recorded for `netdev`: > 0, 0 (it was
 * absent), or -1 (not run by a unit, or nothing recorded by this invocation:
 * then delete by name as before).
 */
int unit_state_ifindex(const char *netdev);
/* Drop the record (after the stop's `down`); no-op outside a unit. */
void unit_state_forget(void);

#endif
