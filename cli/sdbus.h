/* SPDX-License-Identifier: GPL-2.0 */
/* sdbus.h - the few calls rxectl makes to systemd's manager (org.freedesktop.systemd1) over sd-bus. */
#ifndef RXECTL_SDBUS_H
#define RXECTL_SDBUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Is systemd the running init (sd_booted())?  If not, enable/disable only edit the config file. */
bool sdbus_systemd_running(void);

/*
 * "rxe@<instance>.service" for a netdev: the instance is the netdev name
 * escaped as systemd-escape(1) does ('-' becomes \x2d, ...), so that %i in
 * the unit is the escaped name of its sys-subsystem-net-devices-%i.device
 * and %I is the netdev name.  -ENAMETOOLONG if it does not fit.
 */
int sdbus_rxe_unit(const char *netdev, char *buf, size_t len);

/*
 * Each function prints the one sentence for a failure (systemd's own error
 * text included) and returns a negative errno; 0 on success.
 *
 * sdbus_enable()/sdbus_disable(): EnableUnitFiles/DisableUnitFiles (not
 * runtime, not forced) on `units` (NULL-terminated), then Reload; *changed
 * tells whether systemd reported any symlink change.
 * sdbus_start()/sdbus_stop(): StartUnit/StopUnit in "replace" mode and wait
 * (up to `timeout` seconds) for the job to finish; a job that ends other
 * than "done" is an error (-EIO), reported with the unit and the result.
 */
int sdbus_enable(const char *const *units, bool *changed);
int sdbus_disable(const char *const *units, bool *changed);
int sdbus_start(const char *unit, int timeout);
/* systemd's DefaultLimitMEMLOCKSoft (what services get without LimitMEMLOCK=): 0 or -errno. */
int sdbus_default_memlock(uint64_t *soft);
int sdbus_stop(const char *unit, int timeout);
/* systemctl daemon-reload: systemd reads its unit files and drop-ins again. */
int sdbus_reload(void);

#endif
