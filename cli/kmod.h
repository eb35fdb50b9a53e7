/* SPDX-License-Identifier: GPL-2.0 */
/* kmod.h - kernel modules through libkmod: is it loaded, load it, is it available at all. */
#ifndef RXECTL_KMOD_H
#define RXECTL_KMOD_H

#include <stddef.h>

enum module_state {
	MODULE_LOADED,		/* live in /sys/module (or built in) */
	MODULE_AVAILABLE,	/* found in /lib/modules/$(uname -r), not loaded */
	MODULE_NOT_AVAILABLE,	/* no such module for this kernel */
};

/* State of one module (e.g. "rdma_rxe"); negative errno if libkmod fails. */
int module_state(const char *name);
/* Load one module with its dependencies; 0 if already loaded.
 * -ENOENT when the module does not exist for this kernel. */
int module_load(const char *name);

/*
 * What stands between an available module and loading it, for `doctor`: its
 * modprobe.d `install` command (copied into install_cmd, "" if none) and
 * whether a `blacklist` line names it (*blacklisted 1).  Returns 0, or
 * -ENOENT when modules.dep names a file that is gone.
 */
int module_load_policy(const char *name, char *install_cmd, size_t len, int *blacklisted);

/* Load ib_core, ib_uverbs and rdma_rxe (the driver `auto` picks, see driver.h).
 * Prints the sentence that names the fix and returns a negative errno on failure. */
int modules_load_rxe(void);

/* The one sentence for a kernel without RDMA support (no ib_core, no RDMA netlink). */
void report_no_rdma_kernel(void);

/* "in-tree", "bundled", or NULL when rdma_rxe is not loaded: the bundled
 * driver's /sys/module/rdma_rxe/version starts with "rxectl-bundled". */
const char *rxe_driver_kind(void);
/* The contents of /sys/module/rdma_rxe/version, or "" (in-tree has none). */
int rxe_driver_version(char *buf, size_t len);

#endif
