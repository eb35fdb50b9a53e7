// SPDX-License-Identifier: GPL-2.0
/* doctor_target.c - the doctor's checks of one netdev and its rxe device: netdev, port, device node, GID, MTU. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <sys/stat.h>

#include "diag.h"
#include "doctor_checks.h"
#include "kmod.h"

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
		const char *rn = ni->link[0] ? ni->link : "its real device";

		ADD(d, "netdev.kind", CHECK_FAIL, nd, NULL,
		    "%s is a VLAN interface: the kernel creates no rxe device on one; RoCE on the "
		    "VLAN goes through an rxe device on %s, whose GIDs include %s's addresses.", nd,
		    rn, nd);
		check_fix(&d->l, "put the rxe device on %s: `rxectl up %s` (peers use the VLAN's "
			  "addresses and the same VLAN).", rn, rn);
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

void doctor_check_target(struct doctor *d, const struct target *t)
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
