/* SPDX-License-Identifier: GPL-2.0 */
/* kmod.h - the libkmod adapter: is a module loaded or available, its modinfo, load/insert/remove it. */
#ifndef RXECTL_KMOD_H
#define RXECTL_KMOD_H

#include <stddef.h>

enum module_state {
	MODULE_LOADED,		/* live in /sys/module (or built in) */
	MODULE_AVAILABLE,	/* found in /lib/modules/$(uname -r), not loaded */
	MODULE_NOT_AVAILABLE,	/* no such module for this kernel */
};

/* State of one module (e.g. "ib_core"); negative errno if libkmod fails. */
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

/* The directory libkmod reads this kernel's modules from, or "" when it cannot say. */
void module_dir(char *buf, size_t len);
/* The file `modprobe NAME` would load (modules.dep order): 0, or -ENOENT when none. */
int module_path(const char *name, char *buf, size_t len);

/* A module file's modinfo; "" for a field it lacks. */
struct module_file_info {
	char version[128];
	char srcversion[64];
	char depends[256];	/* comma-separated module names */
	/* Its appended signature as libkmod reads it: sig_id ("PKCS#7"), the signer (the signing
	 * certificate's issuer CN) and sig_key (its serial or key id, "5E:E1:..."); all "" when the
	 * file carries no signature (or libkmod cannot read it). */
	char sig_id[32];
	char signer[256];
	char sig_key[256];
};
int module_file_info(const char *path, struct module_file_info *mi);

/* Insert one module file, none of its dependencies (load those first); 0 when loaded already.
 * Past modprobe: no install commands, no blacklist. */
int module_insert_file(const char *path);
/* Remove a loaded module: 0 or -errno (-EBUSY: in use). */
int module_remove(const char *name);

#endif
