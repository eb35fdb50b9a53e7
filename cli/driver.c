// SPDX-License-Identifier: GPL-2.0
/* driver.c - which rdma_rxe: the kernel's (stock) or the bundled one; installed, loaded, chosen. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "driver.h"
#include "kmod.h"
#include "log.h"
#include "modsig.h"
#include "util.h"

static const char *const choice_names[] = {
	[RXE_DRIVER_AUTO] = "auto",
	[RXE_DRIVER_KERNEL] = "kernel",
	[RXE_DRIVER_BUNDLED] = "bundled",
};

const char *rxe_driver_choice_str(enum rxe_driver_choice c)
{
	return (unsigned int)c < ARRAY_SIZE(choice_names) ? choice_names[c] : "?";
}

int rxe_driver_choice_parse(const char *s, enum rxe_driver_choice *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(choice_names); i++)
		if (!strcmp(s, choice_names[i])) {
			*out = (enum rxe_driver_choice)i;
			return 0;
		}
	return -EINVAL;
}

const char *rxe_driver_kind_str(bool bundled)
{
	return bundled ? "bundled" : "in-tree";
}

/* 1/0 from a kernel config file, -1 when the file says nothing either way. */
static int config_says(const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int r = -1;

	if (!f)
		return -1;
	r = 0;			/* a readable config without the symbol: not built */
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "CONFIG_RDMA_RXE=", 16)) {
			r = line[16] == 'm' || line[16] == 'y';
			break;
		}
	}
	fclose(f);
	return r;
}

/* 1 when `list` (modules.order or modules.builtin) names the kernel's rdma_rxe. */
static int list_names_rxe(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int r = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "kernel/", 7) && strstr(line, "/rdma_rxe.ko")) {
			r = 1;
			break;
		}
	}
	fclose(f);
	return r;
}

static int kernel_ships_rxe(const char *moddir, const char *release)
{
	char path[600];
	int r, order;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	r = config_says(path);
	if (r >= 0)
		return r;
	snprintf(path, sizeof(path), "%s/modules.builtin", moddir);
	if (list_names_rxe(path) == 1)
		return 1;
	/* modules.order lists every module the kernel was built with, also those a
	 * distribution moves to another package (Ubuntu's linux-modules-extra). */
	snprintf(path, sizeof(path), "%s/modules.order", moddir);
	order = list_names_rxe(path);
	return order;		/* 1, 0, or -1 when there is no modules.order */
}

/* nftw has no user pointer: the inventory being filled. */
static struct rxe_driver_inventory *scan_inv;

static void add_file(struct rxe_driver_inventory *inv, const char *path)
{
	char real[PATH_MAX];
	struct rxe_driver_file *f;
	struct module_file_info mi;

	if (!realpath(path, real))
		return;
	for (size_t i = 0; i < inv->n_files; i++)
		if (!strcmp(inv->files[i].path, real))
			return;
	if (inv->n_files >= RXE_DRIVER_MAX_FILES)
		return;
	f = &inv->files[inv->n_files];
	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", real);
	if (module_file_info(real, &mi) == 0) {
		snprintf(f->version, sizeof(f->version), "%s", mi.version);
		snprintf(f->srcversion, sizeof(f->srcversion), "%s", mi.srcversion);
	}
	f->bundled = rxe_is_bundled_version(f->version);
	inv->n_files++;
}

static bool is_rxe_file(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	return !strcmp(base, "rdma_rxe.ko") || !strcmp(base, "rdma_rxe.ko.xz") ||
	       !strcmp(base, "rdma_rxe.ko.zst") || !strcmp(base, "rdma_rxe.ko.gz");
}

static int scan_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type == FTW_F && is_rxe_file(path))
		add_file(scan_inv, path);
	return 0;
}

void rxe_driver_inventory(struct rxe_driver_inventory *inv)
{
	static const char *const dirs[] = { "kernel/drivers/infiniband/sw/rxe", "updates", "extra" };
	struct utsname u;
	char moddir[400], path[600], def[PATH_MAX] = "", p[PATH_MAX];

	memset(inv, 0, sizeof(*inv));
	inv->loaded_file = -1;
	uname(&u);
	snprintf(inv->kernel, sizeof(inv->kernel), "%s", u.release);

	module_dir(moddir, sizeof(moddir));
	if (!moddir[0])
		snprintf(moddir, sizeof(moddir), "/lib/modules");
	if (!strstr(moddir, u.release)) {
		size_t l = strlen(moddir);

		snprintf(moddir + l, sizeof(moddir) - l, "/%s", u.release);
	}
	inv->ships = kernel_ships_rxe(moddir, u.release);

	/* What `modprobe rdma_rxe` would load: the first in modules.dep order. */
	if (module_path("rdma_rxe", p, sizeof(p)) == 0) {
		if (realpath(p, def))
			add_file(inv, def);
		else
			def[0] = '\0';
	}

	scan_inv = inv;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", moddir, dirs[i]);
		nftw(path, scan_cb, 16, FTW_PHYS);
	}
	scan_inv = NULL;
	for (size_t i = 0; i < inv->n_files; i++)
		inv->files[i].modprobe_default = def[0] && !strcmp(inv->files[i].path, def);

	if (access("/sys/module/rdma_rxe", F_OK) == 0) {
		char src[64];

		inv->loaded = true;
		read_line("/sys/module/rdma_rxe/version", inv->loaded_version,
			  sizeof(inv->loaded_version));
		read_line("/sys/module/rdma_rxe/srcversion", src, sizeof(src));
		inv->loaded_bundled = rxe_is_bundled_version(inv->loaded_version);
		for (size_t i = 0; i < inv->n_files; i++) {
			const struct rxe_driver_file *f = &inv->files[i];

			if (f->bundled != inv->loaded_bundled)
				continue;
			/* The stock module has no srcversion: the kernel's own file is it. */
			if ((!f->bundled && !src[0]) || (src[0] && !strcmp(src, f->srcversion))) {
				inv->loaded_file = (int)i;
				break;
			}
		}
	}
}

const struct rxe_driver_file *rxe_driver_find(const struct rxe_driver_inventory *inv, bool bundled)
{
	for (size_t i = 0; i < inv->n_files; i++)
		if (inv->files[i].bundled == bundled)
			return &inv->files[i];
	return NULL;
}

void rxe_driver_missing_sentence(const struct rxe_driver_inventory *inv, enum rxe_driver_choice c,
				 char *buf, size_t len)
{
	const char *get = "install it with the rxe-dkms package or `make -C driver dkms-install` "
			  "(see README)";

	if (c == RXE_DRIVER_BUNDLED)
		snprintf(buf, len, "the bundled rdma_rxe was chosen but is not installed for kernel %s; "
			 "%s, or choose the kernel's driver with `rxectl driver use kernel` or "
			 "`driver = auto` in rxe.conf.", inv->kernel, get);
	else if (inv->ships == 0 && c == RXE_DRIVER_KERNEL)
		snprintf(buf, len, "kernel %s does not ship rdma_rxe (it is built without "
			 "CONFIG_RDMA_RXE, like Debian's cloud kernels), but the kernel's driver was "
			 "chosen; choose the bundled one with `driver = auto` or `driver = bundled` in "
			 "rxe.conf and %s.", inv->kernel, get);
	else if (inv->ships == 0)
		snprintf(buf, len, "kernel %s does not ship rdma_rxe (it is built without "
			 "CONFIG_RDMA_RXE, like Debian's cloud kernels) and the bundled driver is not "
			 "installed; %s.", inv->kernel, get);
	else
		snprintf(buf, len, "rdma_rxe is not available for kernel %s; install your "
			 "distribution's extra kernel modules package (for example "
			 "linux-modules-extra-%s on Ubuntu), or build and install the bundled driver "
			 "with `make -C driver module-install` (or `make -C driver dkms-install`; see "
			 "README).", inv->kernel, inv->kernel);
}

/*
 * A refused load: the kernel's signature policy (lockdown, sig_enforce: the cause and the fix,
 * recorded for doctor), else no privilege.  kernel_alt: the kernel's own rdma_rxe is there to use
 * instead.  1 when it said something.
 */
static int report_refusal(const char *path, int err, bool kernel_alt, const char *or_modprobe)
{
	struct modsig_policy pol;
	struct modsig_file sig;
	char cause[1024], fix[1024];

	modsig_policy_read(&pol);
	modsig_file_read(path, &sig);
	if (modsig_explain(err, geteuid() == 0, &pol, &sig, kernel_alt, cause, sizeof(cause), fix,
			   sizeof(fix))) {
		modsig_refusal_record(path, err);
		log_msg(LOG_ERR, "the kernel refused to load %s (%s): %s; %s.", path, strerror(-err),
			cause, fix);
		return 1;
	}
	if (err == -EPERM || err == -EACCES) {
		if (geteuid() != 0)
			log_msg(LOG_ERR, "loading %s was refused (%s); run rxectl as root%s.", path,
				strerror(-err), or_modprobe);
		else
			log_msg(LOG_ERR, "loading %s was refused (%s) although rxectl runs as root: "
				"something forbids loading modules (kernel.modules_disabled, LoadPin, "
				"a security module); see `dmesg` for the kernel's reason.", path,
				strerror(-err));
		return 1;
	}
	return 0;
}

/* Load the dependencies named in the file's modinfo, then the file itself. */
static int load_file(const char *path, bool kernel_alt)
{
	struct module_file_info mi;
	char *save = NULL;
	int err;

	if (module_file_info(path, &mi) < 0)
		mi.depends[0] = '\0';
	for (char *d = strtok_r(mi.depends, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
		err = module_load(d);
		if (err < 0) {
			log_msg(LOG_ERR, "loading %s, which rdma_rxe needs, failed: %s; see `dmesg` for "
				"the kernel's reason.", d, strerror(-err));
			goto out;
		}
	}
	err = module_insert_file(path);
	if (err == 0)
		modsig_refusal_clear_if(path);
	else if (!report_refusal(path, err, kernel_alt, ""))
		log_msg(LOG_ERR, "loading %s failed: %s; see `dmesg` for the kernel's reason (a module "
			"built for another kernel is refused).", path, strerror(-err));
out:
	log_debug("driver: loading %s: %s", path, err ? strerror(-err) : "ok");
	return err;
}

/* The file modprobe picks: load it the way modprobe does (install commands, soft deps). */
static int load_default(const char *path, bool kernel_alt)
{
	int err = module_load("rdma_rxe");

	if (err == 0)
		modsig_refusal_clear_if(path);
	else if (err < 0 && !report_refusal(path, err, kernel_alt,
					    " or load it with `modprobe rdma_rxe` first"))
		log_msg(LOG_ERR, "loading the rdma_rxe kernel module failed: %s; see `dmesg` for the "
			"kernel's reason, and `modprobe -c | grep rdma_rxe` for modprobe.d lines that "
			"change how it loads.", strerror(-err));
	return err;
}

const struct rxe_driver_file *rxe_driver_pick(const struct rxe_driver_inventory *inv,
					      enum rxe_driver_choice choice)
{
	const struct rxe_driver_file *stock = rxe_driver_find(inv, false);
	const struct rxe_driver_file *bundled = rxe_driver_find(inv, true);

	if (choice == RXE_DRIVER_KERNEL)
		return stock;
	if (choice == RXE_DRIVER_BUNDLED)
		return bundled;
	return inv->ships != 0 && stock ? stock : bundled;
}

int rxe_driver_load(enum rxe_driver_choice choice, const struct rxe_driver_inventory *inv)
{
	const struct rxe_driver_file *stock = rxe_driver_find(inv, false);
	const struct rxe_driver_file *f;
	char msg[600], cmd[256];
	int err, blacklisted;

	/* ib_core first, so a kernel without RDMA gets its own sentence. */
	err = module_load("ib_core");
	if (err == -ENOENT) {
		report_no_rdma_kernel();
		return err;
	}
	err = module_load("ib_uverbs");	/* user space reaches the device through it */
	if (err == -ENOENT) {
		report_no_rdma_kernel();
		return err;
	}
	f = rxe_driver_pick(inv, choice);
	if (!f) {
		rxe_driver_missing_sentence(inv, choice, msg, sizeof(msg));
		log_msg(LOG_ERR, "%s", msg);
		return -ENOENT;
	}
	if (choice == RXE_DRIVER_AUTO && f->bundled) {
		if (inv->ships == 0)
			log_info("kernel %s does not ship rdma_rxe; using the bundled driver %s (%s).",
				 inv->kernel, f->version, f->path);
		else
			log_info("the kernel's rdma_rxe is not installed for kernel %s; using the "
				 "bundled driver %s (%s).", inv->kernel, f->version, f->path);
	}
	if (f->modprobe_default)
		return load_default(f->path, f->bundled && stock);
	/* By file, past modprobe: still honour a modprobe.d `install rdma_rxe ...` line. */
	if (module_load_policy("rdma_rxe", cmd, sizeof(cmd), &blacklisted) == 0 && cmd[0]) {
		log_msg(LOG_ERR, "modprobe configuration replaces loading rdma_rxe with `install "
			"rdma_rxe %s`, so rxectl does not load %s either; remove that line from "
			"/etc/modprobe.d to load it.", cmd, f->path);
		return -EPERM;
	}
	return load_file(f->path, f->bundled && stock);
}

int rxe_driver_ensure(enum rxe_driver_choice choice)
{
	struct rxe_driver_inventory inv;

	if (access("/sys/module/rdma_rxe", F_OK) == 0) {
		/* whichever is loaded stays; user space still needs ib_uverbs */
		if (module_load("ib_uverbs") == -ENOENT) {
			report_no_rdma_kernel();
			return -ENOENT;
		}
		return 0;
	}
	rxe_driver_inventory(&inv);
	return rxe_driver_load(choice, &inv);
}

int rxe_driver_unload(void)
{
	if (access("/sys/module/rdma_rxe", F_OK) != 0)
		return 0;
	return module_remove("rdma_rxe");
}

void report_no_rdma_kernel(void)
{
	struct utsname u;

	uname(&u);
	log_msg(LOG_ERR, "kernel %s has no RDMA support (no ib_core module, no RDMA netlink), so it "
		"cannot run rdma_rxe; boot a kernel built with CONFIG_INFINIBAND, such as your "
		"distribution's stock kernel.", u.release);
}

int rxe_driver_version(char *buf, size_t len)
{
	FILE *f = fopen("/sys/module/rdma_rxe/version", "re");

	if (len)
		buf[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

const char *rxe_driver_kind(void)
{
	char v[128];

	if (access("/sys/module/rdma_rxe", F_OK) != 0)
		return NULL;
	rxe_driver_version(v, sizeof(v));
	return rxe_is_bundled_version(v) ? "bundled" : "in-tree";
}
