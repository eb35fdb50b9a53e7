// SPDX-License-Identifier: GPL-2.0
/* verbs.c - port attributes and the GID table with types through libibverbs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "log.h"
#include "verbs.h"

const char *gid_type_str(enum gid_type t)
{
	switch (t) {
	case GID_TYPE_ROCE_V1:	return "RoCE v1";
	case GID_TYPE_ROCE_V2:	return "RoCE v2";
	default:		return "IB";
	}
}

unsigned int verbs_mtu_bytes(int ibv_mtu)
{
	return ibv_mtu >= IBV_MTU_256 && ibv_mtu <= IBV_MTU_4096 ? 128u << ibv_mtu : 0;
}

void verbs_gid_format(struct verbs_gid *g)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	inet_ntop(AF_INET6, g->raw, g->gid, sizeof(g->gid));
	if (!memcmp(g->raw, v4mapped, sizeof(v4mapped))) {
		g->ip_family = AF_INET;
		inet_ntop(AF_INET, g->raw + 12, g->ip, sizeof(g->ip));
	} else {
		g->ip_family = AF_INET6;
		snprintf(g->ip, sizeof(g->ip), "%s", g->gid);
	}
}

static enum gid_type map_type(uint32_t t)
{
	switch (t) {
	case IBV_GID_TYPE_ROCE_V1:	return GID_TYPE_ROCE_V1;
	case IBV_GID_TYPE_ROCE_V2:	return GID_TYPE_ROCE_V2;
	default:			return GID_TYPE_IB;
	}
}

static void add_gid(struct verbs_port *p, const struct ibv_gid_entry *e)
{
	struct verbs_gid *g = &p->gids[p->n_gids++];

	memset(g, 0, sizeof(*g));
	g->index = e->gid_index;
	g->type = map_type(e->gid_type);
	memcpy(g->raw, e->gid.raw, sizeof(g->raw));
	g->ndev_ifindex = e->ndev_ifindex;
	verbs_gid_format(g);
}

static int cmp_gid(const void *a, const void *b)
{
	const struct verbs_gid *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

static int query_gids(struct ibv_context *c, unsigned int port, int tbl_len, struct verbs_port *p)
{
	struct ibv_gid_entry *tbl;
	ssize_t n;
	int max = tbl_len > 0 ? tbl_len : 1;

	p->gids = calloc((size_t)max, sizeof(*p->gids));
	tbl = calloc((size_t)max, sizeof(*tbl));
	if (!p->gids || !tbl) {
		free(tbl);
		return -ENOMEM;
	}
	/* The whole table at once; it holds only valid entries, of every port. */
	n = ibv_query_gid_table(c, tbl, (size_t)max, 0);
	if (n >= 0) {
		for (ssize_t i = 0; i < n; i++)
			if (tbl[i].port_num == port)
				add_gid(p, &tbl[i]);
	} else {
		/* Older providers: one entry at a time; empty slots fail with ENODATA. */
		for (int i = 0; i < tbl_len; i++) {
			struct ibv_gid_entry e;

			if (ibv_query_gid_ex(c, port, (uint32_t)i, &e, 0) == 0)
				add_gid(p, &e);
		}
	}
	free(tbl);
	qsort(p->gids, p->n_gids, sizeof(*p->gids), cmp_gid);
	return 0;
}

static void query_caps(struct ibv_context *c, struct verbs_port *p)
{
	struct ibv_device_attr a;
	struct verbs_caps *k = &p->caps;

	if (ibv_query_device(c, &a)) {
		log_debug("verbs: ibv_query_device: %s", strerror(errno));
		return;
	}
	k->fast_reg = a.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS;
	k->mw = a.device_cap_flags & IBV_DEVICE_MEM_WINDOW;
	k->mw_type2 = a.device_cap_flags & (IBV_DEVICE_MEM_WINDOW_TYPE_2A |
					    IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	k->atomics = a.atomic_cap != IBV_ATOMIC_NONE;
	k->max_mr_size = a.max_mr_size;
	k->max_qp = (unsigned int)a.max_qp;
	k->max_cq = (unsigned int)a.max_cq;
	k->max_mr = (unsigned int)a.max_mr;
	k->max_pd = (unsigned int)a.max_pd;
	k->max_srq = (unsigned int)a.max_srq;
	k->max_qp_wr = (unsigned int)a.max_qp_wr;
	k->max_sge = (unsigned int)a.max_sge;
	k->max_mcast_grp = (unsigned int)a.max_mcast_grp;
	p->have_caps = true;
}

int verbs_query_port(const char *dev_name, unsigned int port, struct verbs_port *out)
{
	struct ibv_device **list;
	struct ibv_context *c = NULL;
	struct ibv_port_attr pa;
	int n = 0, err = -ENODEV;

	memset(out, 0, sizeof(*out));
	list = ibv_get_device_list(&n);
	if (!list)
		return -errno ? -errno : -ENODEV;
	for (int i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name)) {
			c = ibv_open_device(list[i]);
			if (!c)
				err = errno ? -errno : -ENODEV;
			break;
		}
	ibv_free_device_list(list);
	if (!c) {
		log_debug("verbs: %s is not visible to libibverbs: %s", dev_name, strerror(-err));
		return err;
	}
	if (ibv_query_port(c, (uint8_t)port, &pa)) {
		err = errno ? -errno : -EIO;
		ibv_close_device(c);
		return err;
	}
	query_caps(c, out);
	out->state = (uint8_t)pa.state;
	out->phys_state = pa.phys_state;
	out->active_mtu = verbs_mtu_bytes(pa.active_mtu);
	out->max_mtu = verbs_mtu_bytes(pa.max_mtu);
	err = query_gids(c, port, pa.gid_tbl_len, out);
	ibv_close_device(c);
	return err;
}

void verbs_port_free(struct verbs_port *p)
{
	free(p->gids);
	p->gids = NULL;
	p->n_gids = 0;
}
