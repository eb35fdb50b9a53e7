// SPDX-License-Identifier: GPL-2.0
/* doctor_checks.c - every check of `rxectl doctor`, read-only, against the running system. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <pwd.h>
#include <grp.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <infiniband/verbs.h>

#include "run_tool.h"
#include "sdbus.h"
#include "config.h"
#include "diag.h"
#include "doctor.h"
#include "driver.h"
#include "kmod.h"
#include "log.h"
#include "names.h"
#include "rxe.h"
#include "util.h"

struct doctor {
	struct rxectl *ctx;
	struct checklist l;
	struct utsname uts;
	bool rdma;			/* RDMA netlink is open (ctx_rdma_nl_try() succeeded) */
	bool rdma_unloaded;		/* ib_core is a module not loaded yet: no device can exist */
	const char *no_rdma_why;	/* why not, for the skips */
	struct rxe_dev *devs;
	size_t n_devs;
	struct netdev_ctx *nd;
};

struct target {
	char netdev[IF_NAMESIZE];	/* "" for a device whose netdev is gone */
	const struct rxe_dev *dev;	/* NULL when the netdev has none */
	char label[RXE_IBDEV_NAME_MAX];	/* what the user named, for messages */
};

#define ADD(d, id, st, target, fix, ...) check_add(&(d)->l, id, st, target, fix, __VA_ARGS__)

/* --- kernel and modules ---------------------------------------------------------------- */

static void check_kernel(struct doctor *d)
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

/* An install command that stands in for loading: /bin/false, /bin/true, false, true. */
static bool install_disables(const char *cmd)
{
	char first[128] = "", *base;

	sscanf(cmd, "%127s", first);
	base = strrchr(first, '/') ? strrchr(first, '/') + 1 : first;
	return !strcmp(base, "false") || !strcmp(base, "true");
}

static void check_module(struct doctor *d, const char *name)
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
				  "the bundled driver with `make driver` (see README).", d->uts.release);
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
	ADD(d, sid, CHECK_PASS, NULL, NULL,
	    "%s is not loaded but can be loaded; `rxectl up` loads it.", name);
}

/* --- rdma-core's rxe provider ---------------------------------------------------------- */

static void check_provider(struct doctor *d)
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
	if (driver && so)
		ADD(d, "provider.rxe", CHECK_PASS, NULL, NULL,
		    "rdma-core's rxe provider is installed (%s/rxe.driver, %s).", cfgdir, path);
	else if (!driver)
		ADD(d, "provider.rxe", CHECK_FAIL, NULL, fix,
		    "rdma-core's rxe provider is not installed (no `driver rxe` in %s), so verbs "
		    "programs cannot open rxe devices.", cfgdir);
	else
		ADD(d, "provider.rxe", CHECK_FAIL, NULL, fix,
		    "rdma-core's rxe provider library (librxe-rdmav*.so) is missing, so verbs "
		    "programs cannot open rxe devices.");
}

static void check_netns(struct doctor *d)
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

/* --- netdev checks --------------------------------------------------------------------- */

static void check_netdev(struct doctor *d, const struct target *t, struct netdev_info *ni,
			 bool *exists)
{
	struct netdev_addr *addrs = NULL;
	size_t n = 0, v4 = 0, g6 = 0, ll6 = 0;
	char first[INET6_ADDRSTRLEN + 8] = "";
	const char *nd = t->netdev;

	*exists = false;
	if (!nd[0]) {
		ADD(d, "netdev.exists", CHECK_FAIL, t->label, NULL,
		    "the netdev of %s is gone, so the device cannot carry traffic.", t->label);
		check_fix(&d->l, "delete it with `rxectl down %s` and create it again on a netdev "
			  "that exists with `rxectl up NETDEV`.", t->label);
	} else if (!d->nd || netdev_get_by_name(d->nd, nd, ni) < 0) {
		ADD(d, "netdev.exists", CHECK_FAIL, nd, NULL,
		    "%s is neither a network interface nor an rxe device.", nd);
		check_fix(&d->l, "check the name with `ip link` and `rxectl status`%s%s.",
			  d->ctx->config_explicit || access(d->ctx->config_path, F_OK) == 0 ?
			  ", and the sections of " : "",
			  d->ctx->config_explicit || access(d->ctx->config_path, F_OK) == 0 ?
			  d->ctx->config_path : "");
	} else {
		*exists = true;
		ADD(d, "netdev.exists", CHECK_PASS, nd, NULL, "%s exists (ifindex %d%s%s).", nd,
		    ni->ifindex, ni->kind[0] ? ", kind " : "", ni->kind);
	}
	if (!*exists) {
		const char *why = nd[0] ? nd : "the netdev";

		ADD(d, "netdev.up", CHECK_SKIP, nd[0] ? nd : t->label, NULL,
		    "skipped: %s does not exist.", why);
		ADD(d, "netdev.address", CHECK_SKIP, nd[0] ? nd : t->label, NULL,
		    "skipped: %s does not exist.", why);
		ADD(d, "netdev.kind", CHECK_SKIP, nd[0] ? nd : t->label, NULL,
		    "skipped: %s does not exist.", why);
		return;
	}

	/* netdev.up: administrative state, then carrier/operational state */
	if (!(ni->flags & IFF_UP))
		ADD(d, "netdev.up", CHECK_FAIL, nd, NULL,
		    "%s is administratively down, so its rxe port is DOWN.", nd);
	else if (!ni->carrier || !strcmp(ni->operstate, "down") ||
		 !strcmp(ni->operstate, "lowerlayerdown"))
		ADD(d, "netdev.up", CHECK_FAIL, nd, NULL,
		    "%s is up but has no carrier (operational state %s), so its rxe port is DOWN.",
		    nd, ni->operstate[0] ? ni->operstate : "unknown");
	else
		ADD(d, "netdev.up", CHECK_PASS, nd, NULL,
		    "%s is up with carrier (operational state %s).", nd,
		    ni->operstate[0] ? ni->operstate : "unknown");
	if (!(ni->flags & IFF_UP))
		check_fix(&d->l, "bring it up with `ip link set %s up`.", nd);
	else if (d->l.v[d->l.n - 1].status == CHECK_FAIL)
		check_fix(&d->l, "connect the cable or bring up the other end of %s (for a veth, "
			  "`ip link set PEER up`).", nd);

	/* netdev.address */
	if (netdev_get_addrs(d->nd, ni->ifindex, &addrs, &n) < 0)
		n = 0;
	for (size_t i = 0; i < n; i++) {
		const struct netdev_addr *a = &addrs[i];
		bool isv4 = a->family == AF_INET, isg6 = !isv4 && a->scope == RT_SCOPE_UNIVERSE;

		v4 += isv4;
		g6 += isg6;
		ll6 += !isv4 && !isg6;
		if ((isv4 && !first[0]) || (isg6 && !v4 && !first[0]))
			snprintf(first, sizeof(first), "%s/%u", a->str, a->prefixlen);
	}
	free(addrs);
	if (v4 || g6)
		ADD(d, "netdev.address", CHECK_PASS, nd, NULL,
		    "%s has %s %s address %s%s.", nd, v4 ? "an" : "a", v4 ? "IPv4" : "global IPv6",
		    first, v4 + g6 > 1 ? " (and more)" : "");
	else if (ll6)
		ADD(d, "netdev.address", CHECK_WARN, nd, NULL,
		    "%s has only an IPv6 link-local address, so RoCE v2 peers must be on the same "
		    "link and name the interface.", nd);
	else
		ADD(d, "netdev.address", CHECK_FAIL, nd, NULL,
		    "%s has no IP address, so its rxe device has no RoCE v2 GID and peers cannot "
		    "reach it.", nd);
	if (!v4 && !g6)
		check_fix(&d->l, "add one with `ip addr add ADDRESS/PREFIX dev %s` (or through your "
			  "network configuration).", nd);

	/* netdev.kind */
	if ((ni->flags & IFF_LOOPBACK) || !strcmp(nd, "lo")) {
		ADD(d, "netdev.kind", CHECK_WARN, nd, NULL,
		    "%s is the loopback interface: an rxe device on it reaches only this host.", nd);
		check_fix(&d->l, "put the rxe device on the interface peers reach this host through "
			  "(`rxectl up eth0`, say).");
	} else if (!strcmp(ni->kind, "vlan")) {
		ADD(d, "netdev.kind", CHECK_WARN, nd, NULL,
		    "%s is a VLAN interface: RoCE works on it, but every peer must use the same VLAN "
		    "and the GIDs come from %s's own addresses, not its parent's.", nd, nd);
		check_fix(&d->l, "make sure peers use the VLAN too, or put the rxe device on the "
			  "parent interface if that is where the addresses are.");
	} else if (ni->master[0]) {
		struct netdev_info m;
		const char *mk = netdev_get_by_name(d->nd, ni->master, &m) == 0 ? m.kind : "";

		if (!strcmp(mk, "bond") || !strcmp(mk, "team")) {
			ADD(d, "netdev.kind", CHECK_WARN, nd, NULL,
			    "%s is a slave of %s %s: its traffic is received through %s, so an rxe "
			    "device on %s does not get RoCE packets.", nd, mk, ni->master, ni->master, nd);
			check_fix(&d->l, "create the rxe device on %s instead: `rxectl up %s`.",
				  ni->master, ni->master);
		} else if (!strcmp(mk, "bridge") || !strcmp(mk, "openvswitch")) {
			ADD(d, "netdev.kind", CHECK_WARN, nd, NULL,
			    "%s is a port of %s %s: the IP addresses live on %s, so an rxe device on "
			    "%s has no usable GID.", nd, mk, ni->master, ni->master, nd);
			check_fix(&d->l, "create the rxe device on %s instead: `rxectl up %s`.",
				  ni->master, ni->master);
		} else {
			ADD(d, "netdev.kind", CHECK_PASS, nd, NULL,
			    "%s is enslaved to %s (%s).", nd, ni->master, mk[0] ? mk : "unknown kind");
		}
	} else {
		ADD(d, "netdev.kind", CHECK_PASS, nd, NULL, "%s is a %s interface%s.", nd,
		    ni->kind[0] ? ni->kind : "physical or plain", "");
	}
}

/* --- device checks --------------------------------------------------------------------- */

static void owner_names(const struct stat *st, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(st->st_uid);
	struct group *gr = getgrgid(st->st_gid);
	char u[32], g[32];

	snprintf(u, sizeof(u), "%u", st->st_uid);
	snprintf(g, sizeof(g), "%u", st->st_gid);
	snprintf(buf, len, "%s:%s", pw ? pw->pw_name : u, gr ? gr->gr_name : g);
}

static void check_uverbs(struct doctor *d, const struct rxe_dev *dev)
{
	char uv[256], node[300], owner[96];
	struct stat st;

	if (!diag_find_uverbs(dev->name, uv, sizeof(uv))) {
		bool loaded = module_state("ib_uverbs") == MODULE_LOADED;

		ADD(d, "devnode.uverbs", CHECK_FAIL, dev->name, NULL,
		    "%s has no uverbs device%s, so verbs programs cannot open it.", dev->name,
		    loaded ? "" : " because ib_uverbs is not loaded");
		check_fix(&d->l, loaded ? "check `dmesg` for ib_uverbs errors about %s." :
			  "load it with `modprobe ib_uverbs` (`rxectl up` does).", dev->name);
		return;
	}
	snprintf(node, sizeof(node), "/dev/infiniband/%s", uv);
	if (stat(node, &st) < 0 || !S_ISCHR(st.st_mode)) {
		ADD(d, "devnode.uverbs", CHECK_FAIL, dev->name, NULL,
		    "%s is %s's uverbs device, but %s does not exist.", uv, dev->name, node);
		check_fix(&d->l, "udev (or devtmpfs) should create it; run `udevadm trigger "
			  "--subsystem-match=infiniband_verbs` and check that /dev is a devtmpfs.");
		return;
	}
	owner_names(&st, owner, sizeof(owner));
	if (faccessat(AT_FDCWD, node, R_OK | W_OK, AT_EACCESS) < 0) {
		ADD(d, "devnode.uverbs", CHECK_FAIL, dev->name, NULL,
		    "you (uid %u) cannot open %s (mode %04o, owner %s), so verbs programs you run "
		    "fail with \"Permission denied\".", (unsigned int)geteuid(), node,
		    (unsigned int)(st.st_mode & 07777), owner);
		check_fix(&d->l, "the kernel creates uverbs nodes with mode 0666; restore it with "
			  "`chmod 0666 %s` and remove the udev rule or tmpfiles entry that changed it, "
			  "or, to restrict RDMA on purpose, add the users to the node's group.", node);
		return;
	}
	if ((st.st_mode & 0006) != 0006) {
		ADD(d, "devnode.uverbs", CHECK_WARN, dev->name, NULL,
		    "you can open %s, but other users cannot (mode %04o, owner %s).", node,
		    (unsigned int)(st.st_mode & 07777), owner);
		check_fix(&d->l, "if non-root programs need RDMA, `chmod 0666 %s` (the kernel's "
			  "default) or add their users to the node's group.", node);
		return;
	}
	ADD(d, "devnode.uverbs", CHECK_PASS, dev->name, NULL, "%s is usable (mode %04o, owner %s).",
	    node, (unsigned int)(st.st_mode & 07777), owner);
}

static void check_port(struct doctor *d, const struct rxe_dev *dev, const struct netdev_info *ni,
		       bool netdev_exists)
{
	if (dev->state == RDMA_PORT_ACTIVE) {
		ADD(d, "port.active", CHECK_PASS, dev->name, NULL, "%s port %u is ACTIVE (%s).",
		    dev->name, dev->port, rdma_phys_state_str(dev->phys_state));
		return;
	}
	ADD(d, "port.active", CHECK_FAIL, dev->name, NULL, "%s port %u is %s (%s).", dev->name,
	    dev->port, rdma_port_state_str(dev->state), rdma_phys_state_str(dev->phys_state));
	if (!netdev_exists)
		check_fix(&d->l, "its netdev is gone; `rxectl down %s` and create it again.",
			  dev->name);
	else if (!(ni->flags & IFF_UP))
		check_fix(&d->l, "%s is down; bring it up with `ip link set %s up`.", ni->name,
			  ni->name);
	else if (!ni->carrier)
		check_fix(&d->l, "%s has no carrier; connect it or bring up its peer.", ni->name);
	else
		check_fix(&d->l, "the port should follow %s; see `dmesg` for rdma_rxe errors.",
			  ni->name);
}

static void check_gid(struct doctor *d, const struct rxe_dev *dev, struct rxe_details *det,
		      bool netdev_exists)
{
	const struct verbs_gid *rec = NULL;

	if (!det->have_verbs) {
		diag_sysfs_gids(dev, &det->port);
		det->gid_index = rxe_recommend_gid(det->port.gids, det->port.n_gids, det->addrs,
						   det->n_addrs);
	}
	if (!det->have_verbs && det->port.n_gids == 0) {
		ADD(d, "gid.rocev2", CHECK_SKIP, dev->name, NULL,
		    "skipped: libibverbs cannot open %s and sysfs shows no GID table for it, so its "
		    "GIDs cannot be read (see provider.rxe and devnode.uverbs).", dev->name);
		return;
	}
	for (size_t i = 0; i < det->port.n_gids; i++)
		if ((int)det->port.gids[i].index == det->gid_index)
			rec = &det->port.gids[i];
	if (rec && rec->ip_family == AF_INET) {
		ADD(d, "gid.rocev2", CHECK_PASS, dev->name, NULL,
		    "%s has a RoCE v2 GID for %s at index %d: use `-x %d` with perftest, `-g %d` "
		    "with ibv_rc_pingpong.", dev->name, rec->ip, det->gid_index, det->gid_index,
		    det->gid_index);
		return;
	}
	if (rec) {
		bool global = false;

		for (size_t i = 0; i < det->n_addrs; i++)
			if (det->addrs[i].family == AF_INET6 &&
			    !memcmp(det->addrs[i].addr, rec->raw, 16))
				global = det->addrs[i].scope == RT_SCOPE_UNIVERSE;
		ADD(d, "gid.rocev2", global ? CHECK_PASS : CHECK_WARN, dev->name, NULL,
		    "%s has a RoCE v2 GID for the %s address %s at index %d%s.", dev->name,
		    global ? "global IPv6" : "link-local IPv6", rec->ip, det->gid_index,
		    global ? ": use `-x` with perftest, `-g` with ibv_rc_pingpong" : " only");
		if (!global)
			check_fix(&d->l, "add an IPv4 or global IPv6 address to %s "
				  "(`ip addr add ADDRESS/PREFIX dev %s`).", dev->netdev, dev->netdev);
		return;
	}
	ADD(d, "gid.rocev2", CHECK_FAIL, dev->name, NULL,
	    "%s has no RoCE v2 GID for an address of %s, so peers cannot address it.", dev->name,
	    dev->netdev[0] ? dev->netdev : "its netdev");
	if (netdev_exists && det->n_addrs == 0)
		check_fix(&d->l, "add an address to %s with `ip addr add ADDRESS/PREFIX dev %s`; the "
			  "GID appears by itself.", dev->netdev, dev->netdev);
	else
		check_fix(&d->l, "recreate the device: `rxectl down %s && rxectl up %s`.", dev->name,
			  dev->netdev[0] ? dev->netdev : "NETDEV");
}

static void check_mtu(struct doctor *d, const struct target *t, const struct netdev_info *ni,
		      const struct rxe_details *det)
{
	unsigned int want = roce_mtu_for_netdev_mtu(ni->mtu);
	unsigned int active = det && det->have_verbs ? det->port.active_mtu : want;
	const char *verb = det && det->have_verbs ? "gives" : "would give";

	if (active >= 4096) {
		ADD(d, "mtu.active", CHECK_PASS, t->netdev, NULL,
		    "%s's MTU %u %s a RoCE active MTU of %u, the largest.", t->netdev, ni->mtu, verb,
		    active);
		return;
	}
	ADD(d, "mtu.active", CHECK_WARN, t->netdev, NULL,
	    "%s's MTU %u %s a RoCE active MTU of only %u bytes; a netdev MTU of %u or more "
	    "gives 4096.", t->netdev, ni->mtu, verb, active, netdev_mtu_for_roce_4096());
	check_fix(&d->l, "raise it with `ip link set %s mtu 9000` if every host and switch on the "
		  "path carries jumbo frames (both ends use the smaller active MTU).", t->netdev);
}

static void check_target(struct doctor *d, const struct target *t)
{
	struct netdev_info ni;
	struct rxe_details det;
	bool exists;

	memset(&ni, 0, sizeof(ni));
	check_netdev(d, t, &ni, &exists);
	if (d->rdma_unloaded && t->netdev[0]) {
		ADD(d, "device.present", CHECK_FAIL, t->netdev, NULL,
		    "%s has no rxe device: the RDMA modules are not even loaded.", t->netdev);
		check_fix(&d->l, "create it with `rxectl up %s` (it loads them).", t->netdev);
	} else if (!d->rdma) {
		ADD(d, "device.present", CHECK_SKIP, t->netdev[0] ? t->netdev : t->label, NULL,
		    "skipped: %s.", d->no_rdma_why);
	} else if (!t->dev) {
		ADD(d, "device.present", CHECK_FAIL, t->netdev, NULL,
		    "%s has no rxe device.", t->netdev);
		check_fix(&d->l, "create it with `rxectl up %s`.", t->netdev);
	} else {
		ADD(d, "device.present", CHECK_PASS, t->netdev[0] ? t->netdev : t->label, NULL,
		    "%s is the rxe device on %s.", t->dev->name,
		    t->dev->netdev[0] ? t->dev->netdev : "a netdev that is gone");
	}
	if (!t->dev) {
		const char *why = d->rdma || d->rdma_unloaded ? "there is no rxe device" :
				  d->no_rdma_why;

		ADD(d, "port.active", CHECK_SKIP, t->netdev, NULL, "skipped: %s.", why);
		ADD(d, "devnode.uverbs", CHECK_SKIP, t->netdev, NULL, "skipped: %s.", why);
		ADD(d, "gid.rocev2", CHECK_SKIP, t->netdev, NULL, "skipped: %s.", why);
		ADD(d, "counters.errors", CHECK_SKIP, t->netdev, NULL, "skipped: %s.", why);
		if (exists)
			check_mtu(d, t, &ni, NULL);
		else
			ADD(d, "mtu.active", CHECK_SKIP, t->netdev, NULL,
			    "skipped: %s does not exist.", t->netdev);
		return;
	}
	rxe_describe(d->ctx, t->dev, &det);
	check_port(d, t->dev, &ni, exists);
	check_uverbs(d, t->dev);
	check_gid(d, t->dev, &det, exists);
	doctor_check_counters(d->ctx, &d->l, t->dev);
	if (exists)
		check_mtu(d, t, &ni, &det);
	else
		ADD(d, "mtu.active", CHECK_SKIP, t->label, NULL, "skipped: the netdev is gone.");
	rxe_details_free(&det);
}

/* --- firewall -------------------------------------------------------------------------- */

static void report_fw(struct doctor *d, const struct fw_finding *f, bool nft)
{
	enum check_status st = f->verdict == FW_DROP ? CHECK_FAIL : CHECK_WARN;
	const char *how = f->verdict == FW_DROP ? "drops" : "may drop";
	const char *so = f->verdict == FW_DROP ?
		"so RoCE v2 packets from peers never arrive" :
		"depending on what cannot be known here (source address, interface, a named set), "
		"so RoCE v2 packets from some peers may never arrive";

	if (nft && f->handle >= 0) {
		ADD(d, "firewall.udp4791", st, NULL, NULL,
		    "nftables %s table %s, chain %s, rule handle %lld (`%s`) %s inbound UDP 4791, "
		    "%s.", f->family, f->table, f->chain, f->handle, f->rule, how, so);
		check_fix(&d->l, "delete it with `nft delete rule %s %s %s handle %lld`, or accept "
			  "RoCE before it: `nft insert rule %s %s %s udp dport 4791 accept`.",
			  f->family, f->table, f->chain, f->handle, f->family, f->table, f->chain);
	} else if (nft) {
		ADD(d, "firewall.udp4791", st, NULL, NULL,
		    "nftables %s table %s, chain %s has policy drop and no rule that surely accepts "
		    "inbound UDP 4791, so it %s RoCE v2 packets from peers.", f->family, f->table,
		    f->chain, how);
		check_fix(&d->l, "accept RoCE: `nft insert rule %s %s %s udp dport 4791 accept` "
			  "(and make it permanent in /etc/nftables.conf).", f->family, f->table,
			  f->chain);
	} else {
		const char *tool = !strcmp(f->family, "ip6tables") ? "ip6tables" : "iptables";

		ADD(d, "firewall.udp4791", st, NULL, NULL,
		    "%s table %s, chain %s (`%s`) %s inbound UDP 4791, %s.", tool, f->table, f->chain,
		    f->rule, how, so);
		check_fix(&d->l, "accept RoCE before it: `%s -t %s -I %s -p udp --dport 4791 -j "
			  "ACCEPT` (and save the rules).", tool, f->table, f->chain);
	}
}

static void check_firewall(struct doctor *d)
{
	struct fw_report r;

	firewall_inspect(&r);
	switch (r.state) {
	case FW_STATE_DROP:
	case FW_STATE_MAYBE:
		report_fw(d, &r.finding, r.nft);
		break;
	case FW_STATE_DENIED:
		ADD(d, "firewall.udp4791", CHECK_SKIP, NULL, NULL,
		    "skipped: reading the firewall rules needs root (CAP_NET_ADMIN); run "
		    "`sudo rxectl doctor` to check that inbound UDP 4791 is allowed.");
		break;
	case FW_STATE_UNREADABLE:
		ADD(d, "firewall.udp4791", CHECK_SKIP, NULL, NULL,
		    "skipped: the firewall rules could not be read (`nft -j list ruleset` failed).");
		break;
	case FW_STATE_OPEN:
		ADD(d, "firewall.udp4791", CHECK_PASS, NULL, NULL,
		    "no nftables or iptables rule in this network namespace drops inbound UDP 4791.");
		break;
	}
}

/* --- memlock --------------------------------------------------------------------------- */

static bool have_cap_ipc_lock(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long eff = 0;
	bool found = false;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			found = true;
	if (f)
		fclose(f);
	return found ? (eff >> 14) & 1 : geteuid() == 0;	/* CAP_IPC_LOCK is 14 */
}

/* "infinity", "65536", "64K", "8M", "1G" (systemd's LimitMEMLOCK= values); false if not. */
static bool parse_limit(const char *v, uint64_t *out)
{
	char *end;
	unsigned long long n;

	if (!strncmp(v, "infinity", 8)) {
		*out = UINT64_MAX;
		return true;
	}
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || end == v)
		return false;
	switch (*end) {
	case 'K': case 'k': n <<= 10; break;
	case 'M': case 'm': n <<= 20; break;
	case 'G': case 'g': n <<= 30; break;
	case 'T': case 't': n <<= 40; break;
	default: break;
	}
	*out = n;
	return true;
}

/*
 * A LimitMEMLOCK= in a drop-in for every service (service.d/, as rxectl's
 * 50-rxe-memlock.conf), which overrides DefaultLimitMEMLOCK.  The first
 * directory that has one wins, as /etc overrides /run overrides /usr.
 */
static bool service_dropin_memlock(uint64_t *lim, char *file, size_t len)
{
	static const char *const dirs[] = { "/etc/systemd/system/service.d",
		"/run/systemd/system/service.d", "/usr/local/lib/systemd/system/service.d",
		"/usr/lib/systemd/system/service.d", "/lib/systemd/system/service.d" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char pattern[96];
		bool found = false;
		glob_t g;

		snprintf(pattern, sizeof(pattern), "%s/*.conf", dirs[i]);
		if (glob(pattern, 0, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++) {	/* sorted: the last one wins */
			FILE *f = fopen(g.gl_pathv[k], "re");
			char line[256];

			while (f && fgets(line, sizeof(line), f)) {
				const char *v = line + strspn(line, " \t");

				if (!strncmp(v, "LimitMEMLOCK=", 13) && parse_limit(v + 13, lim)) {
					snprintf(file, len, "%s", g.gl_pathv[k]);
					found = true;
				}
			}
			if (f)
				fclose(f);
		}
		globfree(&g);
		if (found)
			return true;
	}
	return false;
}

/* What services get: a service.d drop-in's LimitMEMLOCK=, else systemd's DefaultLimitMEMLOCK. */
static int service_memlock(uint64_t *soft, char *from, size_t len)
{
	if (access("/run/systemd/system", F_OK) != 0)
		return -ENOENT;
	if (service_dropin_memlock(soft, from, len))
		return 0;
	snprintf(from, len, "DefaultLimitMEMLOCK");
	return sdbus_default_memlock(soft);
}

static void check_memlock(struct doctor *d)
{
	struct rlimit rl;
	char cur[32], max[32], svc[32] = "", from[256] = "";
	bool cap = have_cap_ipc_lock(), small, svc_small = false;
	uint64_t s = 0;
	const char *fix = "raise it for users in /etc/security/limits.d/ (`* soft memlock unlimited` "
			  "and `* hard memlock unlimited`, as rxectl's 50-rxe-memlock.conf does, then "
			  "log in again) and for services with `LimitMEMLOCK=infinity` (rxectl's "
			  "service.d/50-rxe-memlock.conf drop-in, or `systemctl edit UNIT`).";

	getrlimit(RLIMIT_MEMLOCK, &rl);
	memlock_str(rl.rlim_cur, rl.rlim_cur == RLIM_INFINITY, cur, sizeof(cur));
	memlock_str(rl.rlim_max, rl.rlim_max == RLIM_INFINITY, max, sizeof(max));
	small = rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < MEMLOCK_SMALL;
	if (service_memlock(&s, from, sizeof(from)) == 0) {
		memlock_str(s, s == UINT64_MAX, svc, sizeof(svc));
		svc_small = s != UINT64_MAX && s < MEMLOCK_SMALL;
	}
	if (small && !cap) {
		ADD(d, "memlock.limit", CHECK_WARN, NULL, fix,
		    "your RLIMIT_MEMLOCK is %s (hard limit %s): verbs programs you run can register "
		    "(pin) only that much memory, and larger ibv_reg_mr() calls fail with \"Cannot "
		    "allocate memory\"%s%s%s%s%s.", cur, max, svc[0] ? "; systemd services get " : "",
		    svc, svc[0] ? " (" : "", from, svc[0] ? ")" : "");
	} else if (svc_small) {
		ADD(d, "memlock.limit", CHECK_WARN, NULL, NULL,
		    "your RLIMIT_MEMLOCK is %s%s, but systemd services get %s (%s): a service "
		    "without CAP_IPC_LOCK can pin only that much memory for RDMA.",
		    cur, cap ? " and you have CAP_IPC_LOCK" : "", svc, from);
		check_fix(&d->l, "install rxectl's drop-in /etc/systemd/system/service.d/"
			  "50-rxe-memlock.conf (`LimitMEMLOCK=infinity` for every service; `make "
			  "install` does), or set it in the RDMA service's unit (`systemctl edit UNIT`), "
			  "then restart the service.");
	} else if (small) {
		ADD(d, "memlock.limit", CHECK_PASS, NULL, NULL,
		    "your RLIMIT_MEMLOCK is %s (hard limit %s), but you run with CAP_IPC_LOCK (as "
		    "root), which lets the kernel pin memory for RDMA beyond that limit; users and "
		    "services without CAP_IPC_LOCK are held to their own limit (limits.d, "
		    "LimitMEMLOCK=)%s%s%s%s%s.", cur, max, svc[0] ? "; systemd services get " : "",
		    svc, svc[0] ? " (" : "", from, svc[0] ? ")" : "");
	} else {
		ADD(d, "memlock.limit", CHECK_PASS, NULL, NULL,
		    "your RLIMIT_MEMLOCK is %s%s%s%s%s%s%s.", cur,
		    cap ? " (and CAP_IPC_LOCK lifts it anyway)" : "",
		    svc[0] ? "; systemd services get " : "", svc, svc[0] ? " (" : "", from,
		    svc[0] ? ")" : "");
	}
}

/* --- targets and the run --------------------------------------------------------------- */

static void add_target(struct target **v, size_t *n, const char *netdev,
		       const struct rxe_dev *dev, const char *label)
{
	struct target *t;

	for (size_t i = 0; i < *n; i++)
		if ((netdev[0] && !strcmp((*v)[i].netdev, netdev)) ||
		    (!netdev[0] && dev && (*v)[i].dev == dev))
			return;
	t = realloc(*v, (*n + 1) * sizeof(*t));
	if (!t)
		return;
	*v = t;
	t = &t[(*n)++];
	memset(t, 0, sizeof(*t));
	snprintf(t->netdev, sizeof(t->netdev), "%s", netdev);
	t->dev = dev;
	snprintf(t->label, sizeof(t->label), "%s", label);
}

int doctor_run(struct rxectl *ctx, char **args, int n_args)
{
	struct doctor d = { .ctx = ctx };
	struct target *tv = NULL;
	size_t nt = 0;
	struct rxe_conf conf = { 0 };
	int ret;

	/* Names first: a bad one is a usage error before anything is looked at. */
	for (int i = 0; i < n_args; i++)
		if (netdev_name_invalid(args[i]) && ibdev_name_invalid(args[i]))
			return rxectl_usage_error("doctor", "'%s' is neither a valid netdev name nor a "
						  "valid RDMA device name.", args[i]);
	if (n_args == 0) {
		ret = ctx_load_config(ctx, &conf);
		if (ret != RXECTL_OK)
			return ret;
	}

	uname(&d.uts);
	if (netdev_open(&d.nd) < 0)
		d.nd = NULL;
	check_kernel(&d);
	check_module(&d, "ib_core");
	check_module(&d, "ib_uverbs");
	check_module(&d, "rdma_rxe");
	check_provider(&d);
	check_netns(&d);
	if (d.rdma && rxe_list(ctx, &d.devs, &d.n_devs) < 0) {
		d.devs = NULL;
		d.n_devs = 0;
	}

	if (n_args) {
		for (int i = 0; i < n_args; i++) {
			const struct rxe_dev *dev = rxe_find_by_name(d.devs, d.n_devs, args[i]);

			if (dev)
				add_target(&tv, &nt, dev->netdev, dev, args[i]);
			else
				add_target(&tv, &nt, args[i],
					   rxe_find_by_netdev(d.devs, d.n_devs, args[i]), args[i]);
		}
	} else {
		for (size_t i = 0; i < conf.n; i++)
			add_target(&tv, &nt, conf.entries[i].netdev,
				   rxe_find_by_netdev(d.devs, d.n_devs, conf.entries[i].netdev),
				   conf.entries[i].netdev);
		for (size_t i = 0; i < d.n_devs; i++)
			add_target(&tv, &nt, d.devs[i].netdev, &d.devs[i], d.devs[i].name);
	}
	for (size_t i = 0; i < nt; i++)
		check_target(&d, &tv[i]);
	if (nt == 0) {
		if (d.rdma || d.rdma_unloaded) {
			ADD(&d, "device.present", CHECK_FAIL, NULL, NULL,
			    "there is no rxe device, and %s declares none.", ctx->config_path);
			check_fix(&d.l, "create one with `rxectl up NETDEV`, or declare it in %s and "
				  "run `rxectl up`.", ctx->config_path);
		} else {
			ADD(&d, "device.present", CHECK_SKIP, NULL, NULL, "skipped: %s.", d.no_rdma_why);
		}
	}
	check_firewall(&d);
	check_memlock(&d);

	checklist_print(ctx, &d.l);
	ret = checklist_result(&d.l) == CHECK_FAIL ? RXECTL_FAIL : RXECTL_OK;
	checklist_free(&d.l);
	free(tv);
	free(d.devs);
	config_free(&conf);
	netdev_close(d.nd);
	return ret;
}
