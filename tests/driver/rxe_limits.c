// SPDX-License-Identifier: GPL-2.0
/* rxe_limits.c - create verbs objects until the device refuses, and check where it does. */

/*
 * Usage: rxe_limits DEVICE pd|cq|srq|qp
 *        rxe_limits DEVICE big-cq|big-qp COUNT
 * The first form creates objects of one kind on DEVICE until creation fails, then reports how
 * many it made and why it stopped. Exit 0 when the device stopped at the limit query_device
 * reports, with ENOMEM or EINVAL: never past it, and at most 8 short of it (the kernel's own
 * users of the device, such as the MAD layer's PD, CQ and QP, count too); 1 when it stopped
 * elsewhere or not at all (it gives up 16 objects past the limit); 2 on bad usage.
 * The second form (run it in a memory cgroup with a small memory.max) creates up to COUNT of
 * the largest CQs (max_cqe entries) or QPs (max_qp_wr send WRs, each with its own CQ): exit 0
 * when creation failed with ENOMEM before COUNT, 1 when all COUNT were made or it failed
 * otherwise.
 *        rxe_limits DEVICE rd-res COUNT RD
 * The third form (run it in a memory cgroup) creates COUNT RC QPs and moves each to RTR with
 * max_dest_rd_atomic RD, and prints how many bytes of the cgroup's memory.current each QP
 * charged: `charged N bytes per QP at max_dest_rd_atomic RD`. Exit 0 when all were made.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	return ctx;
}

/* big-cq / big-qp: the largest objects the device allows, up to @count of them. */
static int big(const char *dev, const char *kind, long count)
{
	struct ibv_context *ctx = open_dev(dev);
	struct ibv_device_attr da;
	struct ibv_pd *pd;
	long made, bytes = 0;
	int err = 0;

	if (!ctx || ibv_query_device(ctx, &da) || !(pd = ibv_alloc_pd(ctx))) {
		fprintf(stderr, "rxe_limits: cannot open %s: %s\n", dev, strerror(errno));
		return 1;
	}
	for (made = 0; made < count; made++) {
		struct ibv_cq *cq;

		errno = 0;
		cq = ibv_create_cq(ctx, !strcmp(kind, "big-cq") ? da.max_cqe : 1, NULL, NULL, 0);
		if (cq && !strcmp(kind, "big-qp")) {
			struct ibv_qp_init_attr qa = {
				.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				.cap = { .max_send_wr = da.max_qp_wr - 1, .max_send_sge = 1,
					 .max_recv_wr = 1, .max_recv_sge = 1 },
			};

			if (!ibv_create_qp(pd, &qa))
				cq = NULL;
			else
				bytes += (long)(da.max_qp_wr) * 64;
		} else if (cq) {
			bytes += (long)cq->cqe * 48;	/* sizeof(struct ib_uverbs_wc) */
		}
		if (!cq) {
			err = errno;
			break;
		}
	}
	printf("created %ld %s (at least %ld MiB of rings) of %ld, stopped by: %s\n", made,
	       kind + 4, bytes >> 20, count, err ? strerror(err) : "nothing");
	if (err != ENOMEM) {
		fprintf(stderr, "rxe_limits: %s\n", err ? "stopped with another error than ENOMEM" :
			"made them all: the rings are not charged to the memory cgroup");
		return 1;
	}
	return 0;
}

/* memory.current of this process's cgroup (v2), or -1 */
static long long memcg_current(void)
{
	char line[512], path[600];
	long long v = -1;
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current", line + 3);
		}
	fclose(f);
	f = fopen(path, "r");
	if (f && fscanf(f, "%lld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/* rd-res: COUNT QPs at RTR with max_dest_rd_atomic RD; what each charged to the cgroup. */
static int rd_res(const char *dev, long count, int rd)
{
	struct ibv_context *ctx = open_dev(dev);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1, .max_sge = 1 } };
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	long long before, after;
	long made;
	int gi;

	if (!ctx || !(pd = ibv_alloc_pd(ctx)) || !(cq = ibv_create_cq(ctx, 1, NULL, NULL, 0)) ||
	    !(srq = ibv_create_srq(pd, &sa))) {
		fprintf(stderr, "rxe_limits: cannot open %s: %s\n", dev, strerror(errno));
		return 1;
	}
	for (gi = 0; gi < 16; gi++)	/* the first GID that is set: the QPs talk to themselves */
		if (!ibv_query_gid(ctx, 1, gi, &gid) && (gid.global.subnet_prefix ||
							 gid.global.interface_id))
			break;
	before = memcg_current();
	if (before < 0) {
		fprintf(stderr, "rxe_limits: cannot read this cgroup's memory.current\n");
		return 1;
	}
	for (made = 0; made < count; made++) {
		struct ibv_qp_init_attr qa = {
			.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 1, .max_send_sge = 1 },
		};
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
					 .qp_access_flags = IBV_ACCESS_REMOTE_READ };
		struct ibv_qp *qp = ibv_create_qp(pd, &qa);

		if (!qp || ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_ACCESS_FLAGS))
			break;
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qp->qp_num;
		a.max_dest_rd_atomic = rd;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = gi;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
			break;
	}
	after = memcg_current();
	if (made < count) {
		fprintf(stderr, "rxe_limits: QP %ld of %ld: %s\n", made + 1, count, strerror(errno));
		return 1;
	}
	printf("charged %lld bytes per QP at max_dest_rd_atomic %d\n", (after - before) / count, rd);
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	struct ibv_device_attr da;
	struct ibv_pd *pd;
	struct ibv_cq *qcq = NULL;
	struct ibv_srq *qsrq = NULL;
	long made = 0, max;
	int err = 0;

	if (argc == 4 && (!strcmp(argv[2], "big-cq") || !strcmp(argv[2], "big-qp")) &&
	    atol(argv[3]) > 0)
		return big(argv[1], argv[2], atol(argv[3]));
	if (argc == 5 && !strcmp(argv[2], "rd-res") && atol(argv[3]) > 0 && atoi(argv[4]) >= 0)
		return rd_res(argv[1], atol(argv[3]), atoi(argv[4]));
	if (argc != 3 || (strcmp(argv[2], "pd") && strcmp(argv[2], "cq") && strcmp(argv[2], "srq") &&
			  strcmp(argv[2], "qp"))) {
		fprintf(stderr, "usage: rxe_limits DEVICE pd|cq|srq|qp\n"
				"       rxe_limits DEVICE big-cq|big-qp COUNT\n"
				"       rxe_limits DEVICE rd-res COUNT RD\n");
		return 2;
	}
	ctx = open_dev(argv[1]);
	if (!ctx || ibv_query_device(ctx, &da)) {
		fprintf(stderr, "rxe_limits: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		fprintf(stderr, "rxe_limits: alloc_pd: %s\n", strerror(errno));
		return 1;
	}
	made = 1;
	max = !strcmp(argv[2], "pd") ? da.max_pd : !strcmp(argv[2], "cq") ? da.max_cq :
	      !strcmp(argv[2], "srq") ? da.max_srq : da.max_qp;
	if (!strcmp(argv[2], "qp")) {
		/* The QPs share one CQ and one SRQ: each costs only its one-slot send ring. */
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1, .max_sge = 1 } };

		qcq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
		qsrq = qcq ? ibv_create_srq(pd, &sa) : NULL;
		if (!qsrq) {
			fprintf(stderr, "rxe_limits: create the QPs' CQ and SRQ: %s\n", strerror(errno));
			return 1;
		}
	}
	if (strcmp(argv[2], "pd"))
		made = 0;	/* the one PD above does not count for CQs and SRQs */
	for (; made <= max + 16; made++) {
		void *o;

		errno = 0;
		if (!strcmp(argv[2], "pd")) {
			o = ibv_alloc_pd(ctx);
		} else if (!strcmp(argv[2], "cq")) {
			o = ibv_create_cq(ctx, 1, NULL, NULL, 0);
		} else if (!strcmp(argv[2], "qp")) {
			struct ibv_qp_init_attr qa = {
				.send_cq = qcq, .recv_cq = qcq, .srq = qsrq, .qp_type = IBV_QPT_RC,
				.cap = { .max_send_wr = 1, .max_send_sge = 1 },
			};

			o = ibv_create_qp(pd, &qa);
		} else {
			struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1, .max_sge = 1 } };

			o = ibv_create_srq(pd, &sa);
		}
		if (!o) {
			err = errno;
			break;
		}
	}
	printf("created %ld %s, device limit %ld, stopped by: %s\n", made, argv[2], max,
	       err ? strerror(err) : "nothing");
	if (made > max || made < max - 8) {
		fprintf(stderr, "rxe_limits: the device did not stop at its limit of %ld\n", max);
		return 1;
	}
	if (err != ENOMEM && err != EINVAL) {
		fprintf(stderr, "rxe_limits: stopped with %s, not ENOMEM or EINVAL\n", strerror(err));
		return 1;
	}
	return 0;
}
