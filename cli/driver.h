/* SPDX-License-Identifier: GPL-2.0 */
/* driver.h - which rdma_rxe: the kernel's (stock) or the bundled one; installed, loaded, chosen. */
#ifndef RXECTL_DRIVER_H
#define RXECTL_DRIVER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* What to load when rdma_rxe is not loaded (rxe.conf `driver =`, `rxectl driver use`). */
enum rxe_driver_choice {
	RXE_DRIVER_AUTO,	/* the kernel's when this kernel ships it, else the bundled one */
	RXE_DRIVER_KERNEL,	/* the kernel's own rdma_rxe (stock) */
	RXE_DRIVER_BUNDLED,	/* this project's driver/ (version "rxectl-bundled...") */
};

/* "auto", "kernel", "bundled"; parse returns 0 or -EINVAL. */
const char *rxe_driver_choice_str(enum rxe_driver_choice c);
int rxe_driver_choice_parse(const char *s, enum rxe_driver_choice *out);

/* One rdma_rxe module file for the running kernel. */
struct rxe_driver_file {
	char path[PATH_MAX];
	char version[128];	/* modinfo `version`, "" for the stock module (it has none) */
	char srcversion[64];	/* modinfo `srcversion`, "" if none */
	bool bundled;		/* version starts with "rxectl-bundled" */
	bool modprobe_default;	/* the file `modprobe rdma_rxe` loads (modules.dep order) */
};

#define RXE_DRIVER_MAX_FILES 8

struct rxe_driver_inventory {
	char kernel[65];			/* uname -r */
	/* Does this kernel ship rdma_rxe: 1 yes (CONFIG_RDMA_RXE, or rdma_rxe in its
	 * modules.order), 0 no (built without it, like Debian's cloud kernel), -1 unknown. */
	int ships;
	struct rxe_driver_file files[RXE_DRIVER_MAX_FILES];
	size_t n_files;
	bool loaded;				/* /sys/module/rdma_rxe exists */
	bool loaded_bundled;
	char loaded_version[128];		/* /sys/module/rdma_rxe/version, "" for stock */
	int loaded_file;			/* index into files[] of the loaded module, -1 unknown */
};

/* Look at /sys/module, /lib/modules/$(uname -r) (kernel/, updates/, extra/) and the kernel's
 * config.  Never fails hard: what cannot be read is left out. */
void rxe_driver_inventory(struct rxe_driver_inventory *inv);
/* The first installed file of that kind, or NULL. */
const struct rxe_driver_file *rxe_driver_find(const struct rxe_driver_inventory *inv, bool bundled);
/* The file rxe_driver_load() loads for that choice (AUTO: the kernel's when this kernel ships
 * it and it is installed, else the bundled one), or NULL when none is installed. */
const struct rxe_driver_file *rxe_driver_pick(const struct rxe_driver_inventory *inv,
					      enum rxe_driver_choice choice);
/* "in-tree" (the kernel's own) or "bundled", as `status` prints the driver. */
const char *rxe_driver_kind_str(bool bundled);

/*
 * Make sure an rdma_rxe is loaded.  If one is loaded already, nothing happens (whichever it is).
 * Otherwise load the chosen one (AUTO: the kernel's when this kernel ships it and it is
 * installed, else the bundled one), with its dependencies; when the bundled one is loaded
 * because the kernel has none, say so on stderr (info).  On failure, print the sentence
 * that names the fix (this kernel does not ship rdma_rxe: the rxe-dkms package or
 * `make -C driver dkms-install`; or the distribution's package that lacks it; a kernel that
 * refuses the file for its signature (lockdown, Secure Boot): the cause and the fix, and the
 * refusal is recorded for doctor, modsig.h) and return a negative errno.
 */
int rxe_driver_ensure(enum rxe_driver_choice choice);
/* Load the chosen driver (rdma_rxe must not be loaded); same messages as above. */
int rxe_driver_load(enum rxe_driver_choice choice, const struct rxe_driver_inventory *inv);
/* Unload rdma_rxe; -EBUSY while devices or users hold it.  0 if it was not loaded. */
int rxe_driver_unload(void);

/* The fix sentence for "no rdma_rxe to load" on this kernel, for up and doctor. */
void rxe_driver_missing_sentence(const struct rxe_driver_inventory *inv, enum rxe_driver_choice c,
				 char *buf, size_t len);

/* The one sentence for a kernel without RDMA support (no ib_core, no RDMA netlink). */
void report_no_rdma_kernel(void);

/* "in-tree", "bundled", or NULL when rdma_rxe is not loaded: the bundled
 * driver's /sys/module/rdma_rxe/version starts with "rxectl-bundled". */
const char *rxe_driver_kind(void);
/* The contents of /sys/module/rdma_rxe/version, or "" (in-tree has none). */
int rxe_driver_version(char *buf, size_t len);

#endif
