// SPDX-License-Identifier: GPL-2.0
/* doctor_system.c - the doctor's whole-system checks: kernel, RDMA modules, rdma-core's rxe provider, the RDMA netns mode. */
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "doctor_checks.h"
#include "driver.h"
#include "kmod.h"
#include "modsig.h"
#include "util.h"

/* --- kernel and modules ---------------------------------------------------------------- */

void doctor_check_kernel(struct doctor *d)
{
	int err;

	/* Opening NETLINK_RDMA would make the kernel load ib_core: doctor loads nothing. */
	if (module_state("ib_core") == MODULE_AVAILABLE) {
		d->no_rdma_why = "ib_core is not loaded yet, so no RDMA device can exist (kernel.rdma)";
		d->rdma_unloaded = true;
		ADD(d, "kernel.rdma", CHECK_PASS, NULL, NULL,
		    "kernel %s has the RDMA core as a module (ib_core) that is not loaded yet; "
		    "`rxectl up` loads it.", d->uts.release);
		return;
	}
	err = ctx_rdma_nl_try(d->ctx);
	if (err == 0) {
		d->rdma = true;
		ADD(d, "kernel.rdma", CHECK_PASS, NULL, NULL,
		    "kernel %s has the RDMA core (ib_core) and RDMA netlink.", d->uts.release);
		return;
	}
	if (err == -EPROTONOSUPPORT && module_state("ib_core") == MODULE_AVAILABLE) {
		d->no_rdma_why = "ib_core is not loaded yet, so no RDMA device can exist (kernel.rdma)";
		ADD(d, "kernel.rdma", CHECK_PASS, NULL, NULL,
		    "kernel %s has the RDMA core as a module (ib_core) that is not loaded yet; "
		    "`rxectl up` loads it.", d->uts.release);
		return;
	}
	if (err == -EPROTONOSUPPORT) {
		d->no_rdma_why = "the kernel has no RDMA support (kernel.rdma)";
		ADD(d, "kernel.rdma", CHECK_FAIL, NULL,
		    "boot a kernel built with CONFIG_INFINIBAND=m and CONFIG_INFINIBAND_USER_ACCESS=m, "
		    "such as your distribution's stock kernel.",
		    "kernel %s has no RDMA support: no ib_core module and no RDMA netlink, so it "
		    "cannot run rdma_rxe.", d->uts.release);
		return;
	}
	d->no_rdma_why = "RDMA netlink cannot be opened (kernel.rdma)";
	ADD(d, "kernel.rdma", CHECK_FAIL, NULL, "see `dmesg`, and try again as root.",
	    "RDMA netlink cannot be opened: %s.", strerror(-err));
}

/* A modprobe.d file with an `install NAME ...` line, for naming it in the fix. */
static bool find_install_line(const char *name, char *file, size_t len)
{
	static const char *const dirs[] = { "/etc/modprobe.d", "/run/modprobe.d",
		"/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d", "/lib/modprobe.d" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char pattern[128];
		glob_t g;

		snprintf(pattern, sizeof(pattern), "%s/*.conf", dirs[i]);
		if (glob(pattern, 0, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++) {
			FILE *f = fopen(g.gl_pathv[k], "re");
			char line[512], w1[64], w2[128];

			while (f && fgets(line, sizeof(line), f))
				if (sscanf(line, "%63s %127s", w1, w2) == 2 && !strcmp(w1, "install") &&
				    !strcmp(w2, name)) {
					snprintf(file, len, "%s", g.gl_pathv[k]);
					fclose(f);
					globfree(&g);
					return true;
				}
			if (f)
				fclose(f);
		}
		globfree(&g);
	}
	return false;
}

static bool refused_ahead(struct doctor *d);

/* An install command that stands in for loading: /bin/false, /bin/true, false, true. */
static bool install_disables(const char *cmd)
{
	char first[128] = "", *base;

	sscanf(cmd, "%127s", first);
	base = strrchr(first, '/') ? strrchr(first, '/') + 1 : first;
	return !strcmp(base, "false") || !strcmp(base, "true");
}

void doctor_check_module(struct doctor *d, const char *name)
{
	char cmd[256] = "", file[256] = "";
	int state = module_state(name), blacklisted = 0, err;
	/* ids are kept as pointers: use the static spellings */
	const char *sid = !strcmp(name, "ib_core") ? "module.ib_core" :
			  !strcmp(name, "ib_uverbs") ? "module.ib_uverbs" : "module.rdma_rxe";

	if (state == MODULE_LOADED) {
		const char *kind = !strcmp(name, "rdma_rxe") ? rxe_driver_kind() : NULL;

		ADD(d, sid, CHECK_PASS, NULL, NULL, "%s is loaded%s%s%s.", name,
		    kind ? " (the " : "", kind ? kind : "", kind ? " driver)" : "");
		return;
	}
	err = state == MODULE_AVAILABLE ? module_load_policy(name, cmd, sizeof(cmd), &blacklisted) : 0;
	if (state == MODULE_NOT_AVAILABLE || err == -ENOENT || state < 0) {
		struct rxe_driver_inventory inv;

		if (!strcmp(name, "rdma_rxe") && (rxe_driver_inventory(&inv), inv.ships == 0)) {
			ADD(d, sid, CHECK_FAIL, NULL, "install the bundled driver: the rxe-dkms package, "
			    "or `make -C driver dkms-install` from the rxectl source (see README).",
			    "kernel %s does not ship rdma_rxe (it is built without CONFIG_RDMA_RXE, "
			    "like Debian's cloud kernels), and the bundled driver is not installed.",
			    d->uts.release);
			return;
		}
		if (!strcmp(name, "rdma_rxe"))
			ADD(d, sid, CHECK_FAIL, NULL, NULL,
			    "rdma_rxe is not available for kernel %s: no module file for it.",
			    d->uts.release);
		else
			ADD(d, sid, CHECK_FAIL, NULL,
			    "boot a kernel built with CONFIG_INFINIBAND=m and "
			    "CONFIG_INFINIBAND_USER_ACCESS=m, such as your distribution's stock kernel.",
			    "%s is not available for kernel %s: no module file for it.", name,
			    d->uts.release);
		if (!strcmp(name, "rdma_rxe"))
			check_fix(&d->l, "install your distribution's extra kernel modules package "
				  "(for example linux-modules-extra-%s on Ubuntu), or build and install "
				  "the bundled driver with `make -C driver module-install` (or `make -C "
				  "driver dkms-install`; see README).", d->uts.release);
		return;
	}
	if (cmd[0] && install_disables(cmd)) {
		bool where = find_install_line(name, file, sizeof(file));

		ADD(d, sid, CHECK_FAIL, NULL, NULL,
		    "%s cannot be loaded: modprobe configuration replaces loading it with "
		    "`install %s %s`.", name, name, cmd);
		check_fix(&d->l, "remove the `install %s` line from %s%s, then load it with "
			  "`modprobe %s` or `rxectl up`.", name, where ? file : "/etc/modprobe.d",
			  where ? "" : " (or wherever modprobe.d files live)", name);
		return;
	}
	if (blacklisted) {
		ADD(d, sid, CHECK_WARN, NULL, NULL,
		    "%s is not loaded and is blacklisted in modprobe.d: `rxectl up` still loads it "
		    "by name, but nothing loads it automatically.", name);
		check_fix(&d->l, "remove the `blacklist %s` line from /etc/modprobe.d if it should "
			  "load at boot, or load it with `modprobe %s`.", name, name);
		return;
	}
	if (!strcmp(name, "rdma_rxe") && refused_ahead(d))
		return;
	ADD(d, sid, CHECK_PASS, NULL, NULL,
	    "%s is not loaded but can be loaded; `rxectl up` loads it.", name);
}

/* --- module signatures ------------------------------------------------------------------- */

/* Will the kernel load this module file under its policy: 0 yes (or not enforced), 1 it will
 * refuse it (unsigned, or signed by a key no trusted keyring holds), 2 cannot tell. */
static int sig_verdict(const struct modsig_policy *pol, const struct modsig_file *f)
{
	if (!modsig_enforced(pol))
		return 0;
	if (f->has_sig == 0 || (f->has_sig == 1 && f->trusted == 0))
		return 1;
	return f->has_sig == 1 && f->trusted == 1 ? 0 : 2;
}

/* module.rdma_rxe when rdma_rxe is not loaded and the file `rxectl up` loads is one the kernel
 * refuses (or refused): say so instead of "can be loaded".  true when it added the check. */
static bool refused_ahead(struct doctor *d)
{
	struct rxe_driver_inventory inv;
	const struct rxe_driver_file *f;
	struct modsig_policy pol;
	struct modsig_file sig;
	char rpath[PATH_MAX];
	int rerr;

	modsig_policy_read(&pol);
	if (!modsig_enforced(&pol))
		return false;
	rxe_driver_inventory(&inv);
	f = rxe_driver_pick(&inv, d->driver);
	if (!f)
		return false;
	if (modsig_refusal_get(rpath, sizeof(rpath), &rerr) && !strcmp(rpath, f->path)) {
		ADD(d, "module.rdma_rxe", CHECK_WARN, NULL, "see driver.signature.",
		    "rdma_rxe is not loaded, and the kernel refused the file `rxectl up` loads (%s) "
		    "on this boot: %s.", f->path, strerror(rerr));
		return true;
	}
	modsig_file_read(f->path, &sig);
	if (sig_verdict(&pol, &sig) != 1)
		return false;
	ADD(d, "module.rdma_rxe", CHECK_WARN, NULL, "see driver.signature.",
	    "rdma_rxe is not loaded, and the kernel will refuse the file `rxectl up` loads (%s): "
	    "module signatures are enforced and it is %s.", f->path,
	    sig.has_sig ? "signed by a key the kernel does not trust" : "unsigned");
	return true;
}

void doctor_check_signature(struct doctor *d)
{
	static const char *const id = "driver.signature";
	struct rxe_driver_inventory inv;
	const struct rxe_driver_file *stock, *worst = NULL;
	struct modsig_policy pol;
	struct modsig_file sig, wsig;
	char pol_s[256], rpath[PATH_MAX], cause[1024], fix[1024];
	int rerr, wv = -1;

	modsig_policy_read(&pol);
	modsig_policy_describe(&pol, pol_s, sizeof(pol_s));
	rxe_driver_inventory(&inv);
	stock = rxe_driver_find(&inv, false);
	if (modsig_refusal_get(rpath, sizeof(rpath), &rerr)) {
		bool alt = stock && strcmp(stock->path, rpath);

		modsig_file_read(rpath, &sig);
		if (!modsig_explain(-rerr, true, &pol, &sig, alt, cause, sizeof(cause), fix,
				    sizeof(fix))) {
			snprintf(cause, sizeof(cause), "module signatures: %s", pol_s);
			modsig_fix(&pol, &sig, alt, fix, sizeof(fix));
		}
		/* A refusal is a failure while no rdma_rxe runs; with one loaded, a warning. */
		ADD(d, id, inv.loaded ? CHECK_WARN : CHECK_FAIL, NULL, NULL,
		    "the kernel refused to load %s on this boot (%s): %s%s%s%s.", rpath,
		    strerror(rerr), cause, inv.loaded ? "; the " : "",
		    inv.loaded ? rxe_driver_kind_str(inv.loaded_bundled) : "",
		    inv.loaded ? " rdma_rxe is loaded instead" : "");
		check_fix(&d->l, "%s.", fix);
		return;
	}
	if (!modsig_enforced(&pol)) {
		ADD(d, id, CHECK_PASS, NULL, NULL, "module signatures are not enforced (%s): the kernel "
		    "loads unsigned modules too.", pol_s);
		return;
	}
	if (inv.loaded && inv.loaded_bundled) {
		ADD(d, id, CHECK_PASS, NULL, NULL, "module signatures are enforced (%s), and the "
		    "kernel accepted the bundled rdma_rxe that is loaded.", pol_s);
		return;
	}
	/* The bundled files: the one the kernel will refuse first, then one it cannot tell about. */
	for (size_t i = 0; i < inv.n_files; i++) {
		int v;

		if (!inv.files[i].bundled)
			continue;
		modsig_file_read(inv.files[i].path, &sig);
		v = sig_verdict(&pol, &sig);
		if (!worst || (v == 1 && wv != 1) || (v == 2 && wv == 0)) {
			worst = &inv.files[i];
			wsig = sig;
			wv = v;
		}
	}
	if (!worst) {
		ADD(d, id, CHECK_PASS, NULL, NULL, "module signatures are enforced (%s); no bundled "
		    "rdma_rxe is installed, and the kernel's own modules carry its signature.", pol_s);
		return;
	}
	modsig_fix(&pol, &wsig, stock != NULL, fix, sizeof(fix));
	if (wv == 0)
		ADD(d, id, CHECK_PASS, NULL, NULL, "module signatures are enforced (%s), and the "
		    "bundled rdma_rxe %s is signed by '%s', a key in the kernel's %s keyring (matched "
		    "by name).", pol_s, worst->path, wsig.signer[0] ? wsig.signer : wsig.key,
		    wsig.keyring);
	else if (wv == 1 && wsig.has_sig == 0)
		ADD(d, id, CHECK_WARN, NULL, NULL, "module signatures are enforced (%s), and the "
		    "bundled rdma_rxe %s is unsigned, so the kernel will refuse it.", pol_s,
		    worst->path);
	else if (wv == 1)
		ADD(d, id, CHECK_WARN, NULL, NULL, "module signatures are enforced (%s), and the "
		    "bundled rdma_rxe %s is signed by '%s', a key none of the kernel's trusted "
		    "keyrings (.builtin_trusted_keys, .secondary_trusted_keys, .machine, .platform) "
		    "holds, so the kernel will refuse it.", pol_s, worst->path,
		    wsig.signer[0] ? wsig.signer : wsig.key);
	else if (wsig.has_sig == 1)
		ADD(d, id, CHECK_WARN, NULL, NULL, "module signatures are enforced (%s), and the "
		    "bundled rdma_rxe %s is signed by '%s'; whether the kernel trusts that key cannot "
		    "be told: %s.", pol_s, worst->path, wsig.signer[0] ? wsig.signer : wsig.key,
		    wsig.keyring);
	else
		ADD(d, id, CHECK_WARN, NULL, NULL, "module signatures are enforced (%s); whether the "
		    "bundled rdma_rxe %s is signed cannot be told (it cannot be read).", pol_s,
		    worst->path);
	if (wv != 0)
		check_fix(&d->l, "%s%s.", wv == 2 ? "if `mokutil --list-enrolled` does not list the "
			  "key, " : "", fix);
}

/* --- rdma-core's rxe provider ---------------------------------------------------------- */

void doctor_check_provider(struct doctor *d)
{
	const char *fix = "install rdma-core's user-space providers: `apt install ibverbs-providers` "
			  "(Debian, Ubuntu) or `dnf install libibverbs` (Fedora, RHEL).";
	const char *cfgdir = getenv("IBV_CONFIG_DIR") ?: "/etc/libibverbs.d";
	char path[PATH_MAX], pattern[PATH_MAX + 32], lib[PATH_MAX];
	bool driver = false, so = false;
	Dl_info info;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/*.driver", cfgdir);
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && !driver; i++) {
			FILE *f = fopen(g.gl_pathv[i], "re");
			char line[256], w1[32], w2[64];

			while (f && !driver && fgets(line, sizeof(line), f))
				driver = sscanf(line, "%31s %63s", w1, w2) == 2 &&
					 !strcmp(w1, "driver") && !strcmp(w2, "rxe");
			if (f)
				fclose(f);
		}
		globfree(&g);
	}
	/* The providers live next to the libibverbs we are linked with. */
	if (dladdr((void *)ibv_get_device_list, &info) && info.dli_fname) {
		snprintf(path, sizeof(path), "%s", info.dli_fname);
		snprintf(lib, sizeof(lib), "%s", dirname(path));
		snprintf(pattern, sizeof(pattern), "%s/libibverbs/librxe-rdmav*.so", lib);
		if (glob(pattern, 0, NULL, &g) == 0) {
			so = g.gl_pathc > 0;
			snprintf(path, sizeof(path), "%s", so ? g.gl_pathv[0] : "");
			globfree(&g);
		}
	}
	if (d->container)
		fix = "install rdma-core's user-space providers in the image: `apt-get install -y "
		      "ibverbs-providers` (Debian, Ubuntu) or `dnf install -y libibverbs` (Fedora, "
		      "RHEL) in its Containerfile.";
	/* The provider is built for one private ABI of libibverbs (librxe-rdmavN.so links
	 * against IBVERBS_PRIVATE_N): one from another rdma-core release is not loaded. */
	if (driver && so) {
		const char *v = strstr(path, "-rdmav");
		char ver[32];

		snprintf(ver, sizeof(ver), "IBVERBS_PRIVATE_%d", v ? atoi(v + 6) : 0);
		if (!dlvsym(RTLD_DEFAULT, "ibv_cmd_alloc_pd", ver)) {
			ADD(d, "provider.rxe", CHECK_FAIL, NULL, fix,
			    "rdma-core's rxe provider %s is built for libibverbs' private ABI %s, "
			    "which this libibverbs (%s) lacks: the two come from different rdma-core "
			    "releases, so libibverbs does not load the provider.", path, ver + 16,
			    info.dli_fname);
			return;
		}
		ADD(d, "provider.rxe", CHECK_PASS, NULL, NULL,
		    "rdma-core's rxe provider is installed (%s/rxe.driver, %s, ABI %s).", cfgdir,
		    path, ver + 16);
	}
	else if (!driver)
		ADD(d, "provider.rxe", CHECK_FAIL, NULL, fix,
		    "rdma-core's rxe provider is not installed (no `driver rxe` in %s), so verbs "
		    "programs cannot open rxe devices.", cfgdir);
	else
		ADD(d, "provider.rxe", CHECK_FAIL, NULL, fix,
		    "rdma-core's rxe provider library (librxe-rdmav*.so) is missing, so verbs "
		    "programs cannot open rxe devices.");
}

void doctor_check_netns(struct doctor *d)
{
	int shared = -1, err;

	if (!d->rdma) {
		ADD(d, "netns.mode", CHECK_SKIP, NULL, NULL, "skipped: %s.", d->no_rdma_why);
		return;
	}
	err = rdma_nl_netns_mode(ctx_rdma_nl(d->ctx), &shared);
	if (err < 0 || shared < 0)
		ADD(d, "netns.mode", CHECK_SKIP, NULL, NULL,
		    "skipped: this kernel does not report the RDMA netns mode (%s).",
		    strerror(err < 0 ? -err : EOPNOTSUPP));
	else if (shared)
		ADD(d, "netns.mode", CHECK_PASS, NULL, NULL,
		    "the RDMA subsystem is in shared netns mode: every network namespace sees "
		    "every RDMA device.");
	else
		ADD(d, "netns.mode", CHECK_PASS, NULL, NULL,
		    "the RDMA subsystem is in exclusive netns mode: an RDMA device is visible only "
		    "in the network namespace it belongs to, so create rxe devices in the namespace "
		    "that uses them (or move one with `rdma dev set DEV netns NS`).");
}
