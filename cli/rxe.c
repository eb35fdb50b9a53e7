// SPDX-License-Identifier: GPL-2.0
/* rxe.c - the device model: which rxe devices exist, their state and GIDs, and how to print them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <rdma/ib_user_ioctl_verbs.h>

#include "driver.h"
#include "log.h"
#include "output.h"
#include "rxe.h"
#include "util.h"

static bool sysfs_attr_is(const char *dev, const char *attr, const char *want)
{
	char path[160], buf[128] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/%s", dev, attr);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return want ? !strcmp(buf, want) : true;
}

/*
 * Is this RDMA device an rxe device?  In order of trust:
 *  - the kernel's uverbs driver id (in-tree rdma_rxe with ib_uverbs loaded);
 *  - rxe's own sysfs attribute "parent" (in-tree rdma_rxe);
 *  - the firmware version of the bundled driver, "rxectl-bundled...", which
 *    does not bind user space by driver id;
 *  - node_desc "rxe", which both drivers set (it can be changed by hand).
 */
static bool is_rxe(struct rdma_nl *nl, const struct rdma_dev_info *dev)
{
	uint32_t id;
	int err = rdma_nl_driver_id(nl, dev->index, &id);

	log_debug("%s: uverbs driver id %s%u, firmware '%s'", dev->name,
		  err ? "unknown, " : "", err ? 0 : id, dev->fw_version);
	if (err == 0 && id != 0)
		return id == RDMA_DRIVER_RXE;
	if (sysfs_attr_is(dev->name, "parent", NULL))
		return true;
	if (rxe_is_bundled_version(dev->fw_version))
		return true;
	return sysfs_attr_is(dev->name, "node_desc", "rxe");
}

static int cmp_dev(const void *a, const void *b)
{
	return strcmp(((const struct rxe_dev *)a)->name, ((const struct rxe_dev *)b)->name);
}

int rxe_list(struct rxectl *ctx, struct rxe_dev **out, size_t *n)
{
	struct rdma_nl *nl = ctx_rdma_nl(ctx);
	struct rdma_dev_info *devs = NULL;
	struct rdma_port_info *ports = NULL;
	struct rxe_dev *v;
	size_t nd = 0, np = 0, k = 0;
	int err;

	if (!nl)
		return -EPROTONOSUPPORT;
	err = rdma_nl_list_devs(nl, &devs, &nd);
	if (err == 0)
		err = rdma_nl_list_ports(nl, &ports, &np);
	if (err < 0) {
		free(devs);
		rxe_report_nl_error(ctx, err, "listing RDMA devices");
		return err;
	}
	v = calloc(np ? np : 1, sizeof(*v));
	if (!v) {
		free(devs);
		free(ports);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nd; i++) {
		if (!is_rxe(nl, &devs[i]))
			continue;
		for (size_t j = 0; j < np; j++) {
			const struct rdma_port_info *p = &ports[j];
			struct rxe_dev *d;

			if (p->dev_index != devs[i].index || p->port != 1)
				continue;
			d = &v[k++];
			d->index = p->dev_index;
			snprintf(d->name, sizeof(d->name), "%s", p->dev_name);
			d->port = p->port;
			d->state = p->state;
			d->phys_state = p->phys_state;
			if (p->has_ndev) {
				snprintf(d->netdev, sizeof(d->netdev), "%s", p->ndev_name);
				d->ndev_index = p->ndev_index;
			}
		}
	}
	free(devs);
	free(ports);
	qsort(v, k, sizeof(*v), cmp_dev);
	*out = v;
	*n = k;
	return 0;
}

const struct rxe_dev *rxe_find_by_name(const struct rxe_dev *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

const struct rxe_dev *rxe_find_by_netdev(const struct rxe_dev *v, size_t n, const char *netdev)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].netdev[0] && !strcmp(v[i].netdev, netdev))
			return &v[i];
	return NULL;
}

/* 0: IPv4, 1: global IPv6, 2: other IPv6 (link-local), 3: not an address of the netdev. */
static int gid_class(const struct verbs_gid *g, const struct netdev_addr *addrs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct netdev_addr *a = &addrs[i];

		if (a->family == AF_INET && g->ip_family == AF_INET &&
		    !memcmp(g->raw + 12, a->addr, 4))
			return 0;
		if (a->family == AF_INET6 && g->ip_family == AF_INET6 &&
		    !memcmp(g->raw, a->addr, 16))
			return a->scope == RT_SCOPE_UNIVERSE ? 1 : 2;
	}
	return 3;
}

int rxe_recommend_gid(const struct verbs_gid *gids, size_t n_gids,
		      const struct netdev_addr *addrs, size_t n_addrs)
{
	int best = -1, best_class = 3;

	for (size_t i = 0; i < n_gids; i++) {
		int c;

		if (gids[i].type != GID_TYPE_ROCE_V2)
			continue;
		c = gid_class(&gids[i], addrs, n_addrs);
		if (c < best_class) {
			best_class = c;
			best = (int)gids[i].index;
		}
	}
	return best;
}

bool rxe_ready(const struct rxe_dev *d, const struct rxe_details *det, char *why, size_t len)
{
	const struct verbs_gid *rec = NULL;
	int want = 3;

	if (d->state != RDMA_PORT_ACTIVE) {
		if (!det->have_netdev)
			snprintf(why, len, "its port is %s and its netdev is gone",
				 rdma_port_state_str(d->state));
		else if (!(det->netdev.flags & IFF_UP))
			snprintf(why, len, "%s is down; bring it up with `ip link set %s up`",
				 det->netdev.name, det->netdev.name);
		else if (!det->netdev.carrier)
			snprintf(why, len, "%s has no carrier (no cable, or its peer is down)",
				 det->netdev.name);
		else
			snprintf(why, len, "its port is still %s", rdma_port_state_str(d->state));
		return false;
	}
	if (!det->have_verbs) {
		snprintf(why, len, "libibverbs cannot open %s; check that ib_uverbs is loaded "
			 "and ibverbs-providers is installed", d->name);
		return false;
	}
	if (!det->have_netdev || det->n_addrs == 0) {
		snprintf(why, len, "%s has no IP address, so %s has no RoCE v2 GID; add one with "
			 "`ip addr add ADDRESS/PREFIX dev %s`", d->netdev, d->name, d->netdev);
		return false;
	}
	for (size_t i = 0; i < det->n_addrs; i++) {
		int c = det->addrs[i].family == AF_INET ? 0 :
			det->addrs[i].scope == RT_SCOPE_UNIVERSE ? 1 : 2;

		if (c < want)
			want = c;
	}
	for (size_t i = 0; i < det->port.n_gids; i++)
		if ((int)det->port.gids[i].index == det->gid_index)
			rec = &det->port.gids[i];
	if (!rec || gid_class(rec, det->addrs, det->n_addrs) != want) {
		snprintf(why, len, "no RoCE v2 GID for the %s address of %s has appeared yet",
			 want == 0 ? "IPv4" : want == 1 ? "global IPv6" : "IPv6", d->netdev);
		return false;
	}
	return true;
}

void rxe_describe(struct rxectl *ctx, const struct rxe_dev *d, struct rxe_details *out)
{
	struct netdev_ctx *nd;

	memset(out, 0, sizeof(*out));
	out->gid_index = -1;
	out->driver = rxe_driver_kind();
	out->have_verbs = verbs_query_port(d->name, d->port, &out->port) == 0;
	nd = d->ndev_index ? ctx_netdev(ctx) : NULL;
	if (nd && netdev_get_by_index(nd, (int)d->ndev_index, &out->netdev) == 0) {
		out->have_netdev = true;
		if (netdev_get_addrs(nd, out->netdev.ifindex, &out->addrs, &out->n_addrs) < 0) {
			out->addrs = NULL;
			out->n_addrs = 0;
		}
	}
	if (out->have_verbs)
		out->gid_index = rxe_recommend_gid(out->port.gids, out->port.n_gids,
						   out->addrs, out->n_addrs);
}

void rxe_details_free(struct rxe_details *det)
{
	verbs_port_free(&det->port);
	free(det->addrs);
	det->addrs = NULL;
	det->n_addrs = 0;
}

static const struct verbs_gid *find_gid(const struct rxe_details *det, int index)
{
	for (size_t i = 0; det->have_verbs && i < det->port.n_gids; i++)
		if ((int)det->port.gids[i].index == index)
			return &det->port.gids[i];
	return NULL;
}

/* What an operator asks before running a kernel ULP (NVMe-oF, NFS/RDMA need fast-register MRs). */
static void print_caps(struct output *o, const struct rxe_details *det)
{
	const struct verbs_caps *k = &det->port.caps;

	if (!det->have_verbs || !det->port.have_caps) {
		out_null(o, "capabilities", NULL);
		return;
	}
	out_obj_begin(o, "capabilities");
	out_bool(o, "fast_reg_mr", "    capabilities: fast-register MRs %s", k->fast_reg);
	out_bool(o, "memory_windows", ", memory windows %s", k->mw);
	out_bool(o, "memory_windows_type2", k->mw ? " (type 2 %s)" : NULL, k->mw_type2);
	out_bool(o, "atomics", ", atomics %s", k->atomics);
	out_uint(o, "max_mr_size", ", max MR size %llu bytes\n", k->max_mr_size);
	out_uint(o, "max_qp", "    limits: %llu QPs", k->max_qp);
	out_uint(o, "max_cq", ", %llu CQs", k->max_cq);
	out_uint(o, "max_mr", ", %llu MRs", k->max_mr);
	out_uint(o, "max_pd", ", %llu PDs", k->max_pd);
	out_uint(o, "max_srq", ", %llu SRQs", k->max_srq);
	out_uint(o, "max_qp_wr", ", %llu WRs per queue", k->max_qp_wr);
	out_uint(o, "max_sge", ", %llu SGEs", k->max_sge);
	out_uint(o, "max_mcast_grp", ", %llu multicast groups\n", k->max_mcast_grp);
	out_obj_end(o);
}

void rxe_print_device(struct rxectl *ctx, const struct rxe_dev *d, const struct rxe_details *det)
{
	struct output *o = ctx->out;
	const struct verbs_gid *rec = find_gid(det, det->gid_index);

	out_obj_begin(o, NULL);
	out_str(o, "name", "%s", d->name);
	out_uint(o, "index", NULL, d->index);
	if (d->netdev[0])
		out_str(o, "netdev", " on %s", d->netdev);
	else
		out_null(o, "netdev", " (its netdev is gone)");
	out_uint(o, "port", NULL, d->port);
	out_str(o, "state", ": %s", rdma_port_state_str(d->state));
	out_str(o, "physical_state", " (%s)", rdma_phys_state_str(d->phys_state));
	if (det->have_verbs)
		out_uint(o, "active_mtu", ", active MTU %llu", det->port.active_mtu);
	else
		out_null(o, "active_mtu", ", active MTU unknown");
	if (det->have_netdev)
		out_uint(o, "netdev_mtu", ", netdev MTU %llu", det->netdev.mtu);
	else
		out_null(o, "netdev_mtu", NULL);
	if (det->driver)
		out_str(o, "driver", ", driver %s", det->driver);
	else
		out_null(o, "driver", NULL);
	out_text(o, "\n");
	if (rec) {
		out_int(o, "gid_index", "    applications should use GID index %lld", det->gid_index);
		out_text(o, " (%s, %s)\n", gid_type_str(rec->type), rec->ip);
	} else {
		out_null(o, "gid_index", "    no RoCE v2 GID maps to an IP address of the netdev yet\n");
	}
	if (!det->have_verbs)
		out_text(o, "    GIDs unknown: libibverbs cannot open %s (is ib_uverbs loaded?)\n",
			 d->name);
	print_caps(o, det);
	out_arr_begin(o, "gids");
	for (size_t i = 0; det->have_verbs && i < det->port.n_gids; i++) {
		const struct verbs_gid *g = &det->port.gids[i];

		out_obj_begin(o, NULL);
		out_uint(o, "index", "    gid %llu", g->index);
		out_str(o, "gid", " %s", g->gid);
		out_str(o, "type", " %s", gid_type_str(g->type));
		out_str(o, "ip", " ip %s\n", g->ip);
		out_obj_end(o);
	}
	out_arr_end(o);
	out_obj_end(o);
}

void rxe_print_summary(struct rxectl *ctx, const struct rxe_dev *d,
		       const struct rxe_details *det, bool created)
{
	struct output *o = ctx->out;
	const struct verbs_gid *rec = find_gid(det, det->gid_index);

	out_obj_begin(o, NULL);
	out_str(o, "name", "%s", d->name);
	out_str(o, "netdev", " on %s", d->netdev);
	out_bool(o, "created", NULL, created);
	out_text(o, created ? " was created and" : " already existed and");
	out_str(o, "state", " is %s", rdma_port_state_str(d->state));
	if (det->have_verbs)
		out_uint(o, "active_mtu", ", active MTU %llu", det->port.active_mtu);
	else
		out_null(o, "active_mtu", NULL);
	if (rec) {
		out_int(o, "gid_index", "; applications should use GID index %lld", det->gid_index);
		out_str(o, "gid", NULL, rec->gid);
		out_str(o, "ip", " (RoCE v2, %s)", rec->ip);
	} else {
		out_null(o, "gid_index", "; it has no RoCE v2 GID for an IP address of its netdev yet");
		out_null(o, "gid", NULL);
		out_null(o, "ip", NULL);
	}
	out_text(o, ".\n");
	out_obj_end(o);
}

int rxe_report_nl_error(struct rxectl *ctx, int err, const char *what)
{
	if (err == -EPERM || err == -EACCES)
		return log_error(RXECTL_FAIL, "%s needs the CAP_NET_ADMIN capability; "
				 "run rxectl as root (for example with sudo).", what);
	return log_error(RXECTL_FAIL, "%s failed: %s.", what, rdma_nl_strerror(ctx->rnl, err));
}
