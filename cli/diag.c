// SPDX-License-Identifier: GPL-2.0
/* diag.c - picking the one RDMA device `rxectl gid` and `rxectl test` work on. */
#include <net/if.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "diag.h"
#include "log.h"
#include "names.h"
#include "util.h"

/* Any RDMA device (not only rxe) by name, port 1, from RDMA netlink. */
static bool find_any(struct rxectl *ctx, const char *name, struct rxe_dev *out)
{
	struct rdma_port_info *ports = NULL;
	size_t n = 0;
	bool found = false;

	if (rdma_nl_list_ports(ctx->rnl, &ports, &n) < 0)
		return false;
	for (size_t i = 0; i < n && !found; i++) {
		const struct rdma_port_info *p = &ports[i];

		if (strcmp(p->dev_name, name) || p->port != 1)
			continue;
		memset(out, 0, sizeof(*out));
		out->index = p->dev_index;
		snprintf(out->name, sizeof(out->name), "%s", p->dev_name);
		out->port = p->port;
		out->state = p->state;
		out->phys_state = p->phys_state;
		if (p->has_ndev) {
			snprintf(out->netdev, sizeof(out->netdev), "%s", p->ndev_name);
			out->ndev_index = p->ndev_index;
		}
		found = true;
	}
	free(ports);
	return found;
}

int diag_pick_device(struct rxectl *ctx, const char *cmd, const char *arg, struct rxe_dev *out)
{
	struct rxe_dev *devs = NULL;
	const struct rxe_dev *d = NULL;
	size_t n = 0;

	if (arg && ibdev_name_invalid(arg) && netdev_name_invalid(arg))
		return rxectl_usage_error(cmd, "'%s' is neither a valid RDMA device name nor a valid "
					  "netdev name.", arg);
	if (rxe_list(ctx, &devs, &n) < 0)
		return RXECTL_FAIL;
	if (arg) {
		d = rxe_find_by_name(devs, n, arg);
		if (!d)
			d = rxe_find_by_netdev(devs, n, arg);
		if (d) {
			*out = *d;
		} else if (!find_any(ctx, arg, out)) {
			free(devs);
			return log_error(RXECTL_FAIL, "there is no RDMA device named %s and no rxe device "
					 "on a netdev %s; see `rxectl status`, or create one with "
					 "`rxectl up NETDEV`.", arg, arg);
		}
	} else if (n == 1) {
		*out = devs[0];
	} else if (n == 0) {
		free(devs);
		return log_error(RXECTL_FAIL, "there is no rxe device; create one with `rxectl up "
				 "NETDEV`, or name an RDMA device: `rxectl %s DEVICE`.", cmd);
	} else {
		char list[512] = "";

		for (size_t i = 0; i < n; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", devs[i].name);
		free(devs);
		return rxectl_usage_error(cmd, "there are %zu rxe devices (%s); name one: `rxectl %s "
					  "DEVICE`.", n, list, cmd);
	}
	free(devs);
	return RXECTL_OK;
}

/* The uverbs character device of an RDMA device, from sysfs: "uverbs0", or false. */
bool diag_find_uverbs(const char *ibdev, char *name, size_t len)
{
	DIR *dir = opendir("/sys/class/infiniband_verbs");
	struct dirent *e;
	bool found = false;

	while (dir && !found && (e = readdir(dir))) {
		char path[512], buf[128] = "";
		FILE *f;

		if (strncmp(e->d_name, "uverbs", 6))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband_verbs/%s/ibdev", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
		if (!strcmp(buf, ibdev)) {
			snprintf(name, len, "%s", e->d_name);
			found = true;
		}
	}
	if (dir)
		closedir(dir);
	return found;
}

int diag_sysfs_gids(const struct rxe_dev *dev, struct verbs_port *p)
{
	const char *base = "/sys/class/infiniband";

	for (unsigned int i = 0; i < 4096; i++) {
		char path[192], buf[64], type[32], ndev[IF_NAMESIZE + 8];
		struct verbs_gid g = { .index = i };
		struct verbs_gid *v;

		snprintf(path, sizeof(path), "%s/%s/ports/%u/gids/%u", base, dev->name, dev->port, i);
		if (access(path, R_OK) != 0)
			break;
		read_line(path, buf, sizeof(buf));
		if (inet_pton(AF_INET6, buf, g.raw) != 1 || !memcmp(g.raw, (uint8_t[16]){ 0 }, 16))
			continue;	/* an empty slot */
		snprintf(path, sizeof(path), "%s/%s/ports/%u/gid_attrs/types/%u", base, dev->name,
			 dev->port, i);
		read_line(path, type, sizeof(type));
		snprintf(path, sizeof(path), "%s/%s/ports/%u/gid_attrs/ndevs/%u", base, dev->name,
			 dev->port, i);
		read_line(path, ndev, sizeof(ndev));
		g.type = !strncmp(type, "RoCE v2", 7) ? GID_TYPE_ROCE_V2 :
			 strstr(type, "RoCE v1") ? GID_TYPE_ROCE_V1 : GID_TYPE_IB;
		g.ndev_ifindex = ndev[0] ? if_nametoindex(ndev) : 0;
		verbs_gid_format(&g);
		v = realloc(p->gids, (p->n_gids + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->gids = v;
		v[p->n_gids++] = g;
	}
	return 0;
}

int diag_describe(struct rxectl *ctx, const struct rxe_dev *d, struct rxe_details *det)
{
	rxe_describe(ctx, d, det);
	if (det->have_verbs)
		return RXECTL_OK;
	/* libibverbs cannot open it (no provider, no access to uverbs): sysfs has the table. */
	log_debug("libibverbs cannot open %s; reading its GID table from sysfs", d->name);
	diag_sysfs_gids(d, &det->port);
	det->gid_index = rxe_recommend_gid(det->port.gids, det->port.n_gids, det->addrs,
					   det->n_addrs);
	if (det->port.n_gids)
		return RXECTL_OK;
	rxe_details_free(det);
	return log_error(RXECTL_FAIL, "the GID table of %s cannot be read: libibverbs cannot open "
			 "it and sysfs shows none; `rxectl doctor %s` says why.", d->name, d->name);
}
