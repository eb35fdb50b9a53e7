// SPDX-License-Identifier: GPL-2.0
/* rxe_atomics.c - RC atomics between two hosts, every returned and final value checked. */

/*
 * Usage: rxe_atomics DEVICE GID_INDEX PEER_IPV4 DIR server|client COUNT
 * Each side creates an RC QP and an 8-byte target, writes "qpn rkey va" to DIR/<role>.info
 * (DIR is shared by both hosts) and connects to the other's. The client then does COUNT
 * fetch-and-add (+1) on the server's target, then COUNT compare-and-swap (v -> v + 1) and one
 * compare-and-swap that must fail (wrong compare), up to 16 at a time in flight, checking each
 * returned old value, and touches DIR/atomics-done. The server waits for that and checks its
 * target holds 2 * COUNT. Timeout 14, retry_cnt 7, rnr_retry 7: built for lossy wires.
 * Exit 0 when every value was right, 1 with a message when not, 2 on bad usage.
 */
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define INFLIGHT	16
#define die(...) do { fprintf(stderr, "rxe_atomics: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void wait_file(const char *path, int secs)
{
	double end = now() + secs;

	while (access(path, F_OK)) {
		if (now() > end)
			die("%s did not appear within %d s", path, secs);
		usleep(100000);
	}
}

static struct ibv_cq *cq;
static struct ibv_qp *qp;

static struct ibv_wc wait_wc(void)
{
	double end = now() + 120;
	struct ibv_wc wc;
	int n;

	while (!(n = ibv_poll_cq(cq, 1, &wc)))
		if (now() > end)
			die("no completion within 120 s");
	if (n < 0)
		die("poll_cq");
	if (wc.status != IBV_WC_SUCCESS)
		die("atomic wr_id %llu completed with %s", (unsigned long long)wc.wr_id,
		    ibv_wc_status_str(wc.status));
	return wc;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_qp_init_attr init = {};
	struct ibv_qp_attr a = {};
	union ibv_gid dgid = {};
	struct in_addr peer;
	unsigned int rqpn, rrkey;
	unsigned long long rva;
	uint64_t *target, *res;
	struct ibv_mr *tmr, *rmr;
	struct ibv_pd *pd;
	const char *dir;
	char path[4096], tmp[4200];
	int i, n, gidx, server;
	long count, posted, done;
	FILE *f;

	if (argc != 7 || inet_pton(AF_INET, argv[3], &peer) != 1 ||
	    (strcmp(argv[5], "server") && strcmp(argv[5], "client")) || atol(argv[6]) <= 0) {
		fprintf(stderr, "usage: rxe_atomics DEVICE GID_INDEX PEER_IPV4 DIR server|client COUNT\n");
		return 2;
	}
	gidx = atoi(argv[2]);
	dir = argv[4];
	server = !strcmp(argv[5], "server");
	count = atol(argv[6]);

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("no device %s", argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 2 * INFLIGHT, NULL, NULL, 0);
	if (!pd || !cq)
		die("alloc_pd/create_cq");
	init.send_cq = init.recv_cq = cq;
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = INFLIGHT;
	init.cap.max_recv_wr = 1;
	init.cap.max_send_sge = init.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &init);
	target = aligned_alloc(4096, 4096);
	res = aligned_alloc(4096, 4096 * 8);
	if (!qp || !target || !res)
		die("create_qp/alloc");
	memset(target, 0, 4096);
	tmr = ibv_reg_mr(pd, target, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	rmr = ibv_reg_mr(pd, res, 4096 * 8, IBV_ACCESS_LOCAL_WRITE);
	if (!tmr || !rmr)
		die("reg_mr");

	snprintf(path, sizeof(path), "%s/%s.info", dir, argv[5]);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		die("cannot write %s", tmp);
	fprintf(f, "%u %u %llu\n", qp->qp_num, tmr->rkey, (unsigned long long)(uintptr_t)target);
	fclose(f);
	rename(tmp, path);
	snprintf(path, sizeof(path), "%s/%s.info", dir, server ? "client" : "server");
	wait_file(path, 120);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%u %u %llu", &rqpn, &rrkey, &rva) != 3)
		die("cannot read %s", path);
	fclose(f);

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify INIT");
	memset(&a, 0, sizeof(a));
	dgid.raw[10] = dgid.raw[11] = 0xff;
	memcpy(&dgid.raw[12], &peer, 4);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = rqpn;
	a.rq_psn = 500;
	a.max_dest_rd_atomic = INFLIGHT;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = dgid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 500;
	a.max_rd_atomic = INFLIGHT;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify RTS");

	snprintf(path, sizeof(path), "%s/atomics-done", dir);
	if (server) {
		wait_file(path, 600);
		if (*(volatile uint64_t *)target != (uint64_t)(2 * count))
			die("target holds %llu after the client's atomics, expected %ld",
			    (unsigned long long)*target, 2 * count);
		printf("ok: target holds %ld\n", 2 * count);
		return 0;
	}

	/*
	 * Fetch-and-add, up to INFLIGHT at once: the i-th (wr_id i) returns i, in order. Then
	 * compare-and-swap one at a time (each compares with what the previous one left): the
	 * i-th swaps count + i for count + i + 1. Last, a CAS with a wrong compare changes nothing.
	 */
	for (posted = done = 0; done < count;) {
		while (posted < count && posted - done < INFLIGHT) {
			struct ibv_sge s = { (uintptr_t)&res[posted % 4096], 8, rmr->lkey };
			struct ibv_send_wr wr = { .wr_id = posted, .sg_list = &s, .num_sge = 1,
						  .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
						  .send_flags = IBV_SEND_SIGNALED }, *bad;

			wr.wr.atomic.remote_addr = rva;
			wr.wr.atomic.rkey = rrkey;
			wr.wr.atomic.compare_add = 1;
			if (ibv_post_send(qp, &wr, &bad))
				die("post_send");
			posted++;
		}
		struct ibv_wc wc = wait_wc();

		if ((long)wc.wr_id != done)
			die("fetch-and-add completion %llu out of order (expected %ld)",
			    (unsigned long long)wc.wr_id, done);
		if (res[done % 4096] != (uint64_t)done)
			die("fetch-and-add %ld returned %llu, expected %ld", done,
			    (unsigned long long)res[done % 4096], done);
		done++;
	}
	for (i = 0; i <= count; i++) {
		uint64_t expect = count + i, cmp = i == count ? 12345 : expect;
		struct ibv_sge s = { (uintptr_t)&res[0], 8, rmr->lkey };
		struct ibv_send_wr wr = { .wr_id = i, .sg_list = &s, .num_sge = 1,
					  .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		if (i == count)
			expect = 2 * count;
		wr.wr.atomic.remote_addr = rva;
		wr.wr.atomic.rkey = rrkey;
		wr.wr.atomic.compare_add = cmp;
		wr.wr.atomic.swap = cmp + 1;
		res[0] = ~0ULL;
		if (ibv_post_send(qp, &wr, &bad))
			die("post_send");
		wait_wc();
		if (res[0] != expect)
			die("compare-and-swap %d returned %llu, expected %llu", i,
			    (unsigned long long)res[0], (unsigned long long)expect);
	}
	f = fopen(path, "w");
	if (f)
		fclose(f);
	printf("ok: %ld fetch-and-add and %ld compare-and-swap returned the right values\n", count,
	       count + 1);
	return 0;
}
