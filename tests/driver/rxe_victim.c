// SPDX-License-Identifier: GPL-2.0
/* rxe_victim.c - the target side of the hostile-peer tests (tests/driver/rxe_hostile.py). */

/*
 * Usage: rxe_victim DEVICE GID_INDEX PEER_IPV4 DIR MODE
 * Creates an RC QP on DEVICE connected (GID_INDEX) to a QP 0x123 at PEER_IPV4 that does not
 * exist (the hostile program plays it), then a 64 KiB MR with remote read, write and atomic
 * access (after the QP, so process exit deregisters it first), filled with "SECRET" bytes.
 * It writes DIR/victim.info ("qpn rkey va rq_psn sq_psn") and waits for DIR/go, then:
 *   dereg   deregister the MR and print how long that took
 *   spoof   (a SEND of 16 bytes was posted before victim.info) fail if that SEND completed
 *           by DIR/go; then touch DIR/checked and wait up to 20 s for it to complete well
 *   state   print the QP state ("state ERR", "state RTS", ...)
 *   uc      the QP is UC (write access only) with 4 receives of 4 KiB posted before
 *           victim.info; after DIR/go, exactly two messages must have arrived, in the first
 *           two receives: 100 bytes of 'O', then 1024 of 'F' and 50 of 'L' (rxe_hostile.py uc:
 *           every message with a lost or reordered packet dropped), and the QP still in RTS
 *   stale   local ACK timeout 14 (67 ms), retry_cnt 2: after DIR/go post a 1 KiB READ, which
 *           must complete with 1024 'R' bytes (rxe_hostile.py stale answers it after 0.6 s of
 *           old ACKs), post a second READ, which must fail with
 *           RETRY_EXC_ERR (the peer answers it with old ACKs only); prints both times
 *   idle    rnr_retry 0 (an RNR NAK acted on is fatal): after DIR/go the QP must still be in
 *           RTS (rxe_hostile.py idle NAKed it with nothing outstanding), then a SEND of 16
 *           bytes is posted and must complete well within 20 s (its NAKs for an older PSN are
 *           to be ignored, its ACK completes it)
 *   rnr     rnr_retry 1: after DIR/go three SENDs, one after the other, must each complete
 *           well within 10 s (rxe_hostile.py rnr answers each with one RNR NAK, then an ACK:
 *           the retry spent on one is given back by its progress)
 *   mtu     path MTU 4096 (the netdev's MTU is still 1500 when the QP connects), a 4 MiB MR:
 *           once DIR/reading appears (rxe_hostile.py mtu has sent a READ of the whole MR; the
 *           caller raised the netdev's MTU after the QP connected) call modify_qp (RTS to RTS,
 *           min_rnr_timer) every 0.2 ms until DIR/read, as SCHED_FIFO (root); prints the number
 *           of calls and the state, which must be RTS
 *   flood   a 4 MiB MR (path MTU 1024): after DIR/go wait for DIR/done (rxe_hostile.py flood
 *           has had a READ of the whole MR and the READ behind it answered); prints the
 *           state, which must be RTS
 * Exit 0 when the mode behaved, 1 with a message when not, 2 on bad usage.
 */
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LEN	65536
#define MTU_LEN	(4 << 20)
#define RQ_PSN	1000
#define SQ_PSN	2000

#define die(...) do { fprintf(stderr, "rxe_victim: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void wait_file(const char *dir, const char *name, int secs)
{
	char path[4096];
	double end = now() + secs;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (access(path, F_OK)) {
		if (now() > end)
			die("%s did not appear within %d s", path, secs);
		usleep(100000);
	}
}

static void touch(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		die("cannot create %s", path);
	fclose(f);
}

static const char *state_name(enum ibv_qp_state s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_qp_init_attr init = {};
	struct ibv_qp_attr a = {};
	struct ibv_qp_init_attr qi;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	union ibv_gid dgid = {};
	struct in_addr peer;
	const char *dir, *mode;
	char path[4096], tmp[4096];
	uint8_t *buf;
	FILE *f;
	int i, gidx, n, uc, stale, idle, rnr, mtu, flood;
	size_t len;

	if (argc != 6 || inet_pton(AF_INET, argv[3], &peer) != 1) {
		fprintf(stderr, "usage: rxe_victim DEVICE GID_INDEX PEER_IPV4 DIR "
			"dereg|spoof|state|uc|stale|idle|rnr|mtu|flood\n");
		return 2;
	}
	gidx = atoi(argv[2]);
	dir = argv[4];
	mode = argv[5];
	if (strcmp(mode, "dereg") && strcmp(mode, "spoof") && strcmp(mode, "state") &&
	    strcmp(mode, "uc") && strcmp(mode, "stale") && strcmp(mode, "idle") &&
	    strcmp(mode, "rnr") && strcmp(mode, "mtu") && strcmp(mode, "flood")) {
		fprintf(stderr, "rxe_victim: unknown mode %s (dereg, spoof, state, uc, stale, idle, "
			"rnr, mtu or flood)\n", mode);
		return 2;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("no device %s", argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!pd || !cq)
		die("alloc_pd/create_cq");
	init.send_cq = init.recv_cq = cq;
	uc = !strcmp(mode, "uc");
	stale = !strcmp(mode, "stale");
	idle = !strcmp(mode, "idle");
	rnr = !strcmp(mode, "rnr");
	mtu = !strcmp(mode, "mtu");
	flood = !strcmp(mode, "flood");
	len = mtu || flood ? MTU_LEN : LEN;
	init.qp_type = uc ? IBV_QPT_UC : IBV_QPT_RC;
	init.cap.max_send_wr = init.cap.max_recv_wr = 4;
	init.cap.max_send_sge = init.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &init);
	if (!qp)
		die("create_qp");
	buf = aligned_alloc(4096, len);
	for (i = 0; i < (int)len; i++)
		buf[i] = "SECRET"[i % 6];
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		die("reg_mr");

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = uc ? IBV_ACCESS_REMOTE_WRITE : IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify INIT");
	memset(&a, 0, sizeof(a));
	dgid.raw[10] = dgid.raw[11] = 0xff;
	memcpy(&dgid.raw[12], &peer, 4);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu ? IBV_MTU_4096 : IBV_MTU_1024;
	a.dest_qp_num = 0x123;
	a.rq_psn = RQ_PSN;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = dgid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN |
			  (uc ? 0 : IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)))
		die("modify RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = SQ_PSN;
	a.timeout = stale ? 14 : 20;	/* 20: the SEND of "spoof" stays outstanding 4.3 s */
	a.retry_cnt = stale ? 2 : 7;
	a.rnr_retry = idle ? 0 : rnr ? 1 : 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  (uc ? 0 : IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			   IBV_QP_MAX_QP_RD_ATOMIC)))
		die("modify RTS");

	for (i = 0; uc && i < 4; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf + 16384 + i * 8192, .length = 4096,
				       .lkey = mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *rbad;

		if (ibv_post_recv(qp, &rwr, &rbad))
			die("post_recv");
	}

	if (!strcmp(mode, "spoof")) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 16, .lkey = mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
		struct ibv_send_wr *bad;

		if (ibv_post_send(qp, &wr, &bad))
			die("post_send");
	}
	snprintf(path, sizeof(path), "%s/victim.info", dir);
	snprintf(tmp, sizeof(tmp), "%s/victim.info.tmp", dir);
	f = fopen(tmp, "w");
	if (!f)
		die("cannot write %s", tmp);
	fprintf(f, "%u %u %llu %u %u\n", qp->qp_num, mr->rkey,
		(unsigned long long)(uintptr_t)buf, RQ_PSN, SQ_PSN);
	fclose(f);
	if (rename(tmp, path))
		die("rename %s", tmp);
	wait_file(dir, "go", 300);

	if (idle || rnr) {
		for (i = 1; i <= (idle ? 1 : 3); i++) {
			struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 16, .lkey = mr->lkey };
			struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
						  .opcode = IBV_WR_SEND,
						  .send_flags = IBV_SEND_SIGNALED };
			struct ibv_send_wr *bad;
			double end = now() + (idle ? 20 : 10);

			if (ibv_query_qp(qp, &a, IBV_QP_STATE, &qi))
				die("query_qp");
			if (a.qp_state != IBV_QPS_RTS)
				die("before SEND %d the QP is in state %s", i, state_name(a.qp_state));
			if (ibv_post_send(qp, &wr, &bad))
				die("post_send %d", i);
			while ((n = ibv_poll_cq(cq, 1, &wc)) == 0 && now() < end)
				usleep(1000);
			if (n <= 0)
				die("SEND %d did not complete", i);
			if (wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)i)
				die("SEND %d: wr_id %llu completed with %s", i,
				    (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
		}
		if (ibv_query_qp(qp, &a, IBV_QP_STATE, &qi))
			die("query_qp");
		printf(idle ? "idle: state RTS after the stray NAKs, the SEND completed; state %s\n" :
		       "rnr: 3 SENDs, each RNR NAKed once, completed; state %s\n",
		       state_name(a.qp_state));
		return a.qp_state == IBV_QPS_RTS ? 0 : 1;
	}
	if (mtu) {
		double end = now() + 30;
		int calls = 0;

		/*
		 * The READ is answered by the driver's worker (WQ_HIGHPRI): on a one-CPU guest a
		 * normal process runs only once it is done. SCHED_FIFO stands in for a second CPU:
		 * the process runs between two of the worker's work items.
		 */
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			die("sched_setscheduler(SCHED_FIFO)");
		snprintf(path, sizeof(path), "%s/reading", dir);
		while (access(path, F_OK) && now() < end)
			usleep(200);
		snprintf(path, sizeof(path), "%s/read", dir);
		while (access(path, F_OK) && now() < end) {
			memset(&a, 0, sizeof(a));
			a.min_rnr_timer = 1 + calls % 2;
			if (ibv_modify_qp(qp, &a, IBV_QP_MIN_RNR_TIMER))
				die("modify_qp (min_rnr_timer) %d failed", calls);
			calls++;
			usleep(200);
		}
		wait_file(dir, "done", 20);
		if (ibv_query_qp(qp, &a, IBV_QP_STATE, &qi))
			die("query_qp");
		printf("mtu: %d modify_qp calls during the READs; state %s\n", calls,
		       state_name(a.qp_state));
		return a.qp_state == IBV_QPS_RTS ? 0 : 1;
	}
	if (flood) {
		wait_file(dir, "done", 120);
		if (ibv_query_qp(qp, &a, IBV_QP_STATE, &qi))
			die("query_qp");
		printf("flood: state %s\n", state_name(a.qp_state));
		return a.qp_state == IBV_QPS_RTS ? 0 : 1;
	}
	if (!strcmp(mode, "dereg")) {
		double t0 = now();

		if (ibv_dereg_mr(mr))
			die("dereg_mr failed");
		printf("dereg_mr returned after %.3f s\n", now() - t0);
		return 0;
	}
	if (!strcmp(mode, "spoof")) {
		double end = now() + 2;

		while (now() < end) {
			n = ibv_poll_cq(cq, 1, &wc);
			if (n > 0)
				die("the SEND completed (%s) on a packet from a third address",
				    ibv_wc_status_str(wc.status));
			usleep(10000);
		}
		if (ibv_query_qp(qp, &a, IBV_QP_STATE, &qi))
			die("query_qp");
		if (a.qp_state != IBV_QPS_RTS)
			die("the QP is in state %s after the spoofed packets", state_name(a.qp_state));
		touch(dir, "checked");
		end = now() + 20;
		while (now() < end) {
			n = ibv_poll_cq(cq, 1, &wc);
			if (n > 0) {
				if (wc.status != IBV_WC_SUCCESS || wc.wr_id != 7)
					die("the SEND completed with %s", ibv_wc_status_str(wc.status));
				printf("spoofed ACK/NAK ignored; the peer's ACK completed the SEND\n");
				return 0;
			}
			usleep(10000);
		}
		die("the peer's own ACK did not complete the SEND either: the test cannot tell");
	}
	if (stale) {
		for (i = 1; i <= 2; i++) {
			struct ibv_sge sge = { .addr = (uintptr_t)buf + 32768, .length = 1024,
					       .lkey = mr->lkey };
			struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
						  .opcode = IBV_WR_RDMA_READ,
						  .send_flags = IBV_SEND_SIGNALED,
						  .wr.rdma = { .remote_addr = 0x10000, .rkey = 0x42 } };
			struct ibv_send_wr *bad;
			double t0 = now(), end = t0 + 10;

			if (ibv_post_send(qp, &wr, &bad))
				die("post_send READ %d", i);
			while ((n = ibv_poll_cq(cq, 1, &wc)) == 0 && now() < end)
				usleep(1000);
			if (n <= 0)
				die("READ %d did not complete within 10 s", i);
			if (wc.wr_id != (uint64_t)i ||
			    wc.status != (i == 1 ? IBV_WC_SUCCESS : IBV_WC_RETRY_EXC_ERR))
				die("READ %d: wr_id %llu completed with %s", i,
				    (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
			if (i == 1) {
				for (n = 0; n < 1024; n++)
					if (buf[32768 + n] != 'R')
						die("READ 1: byte %d is 0x%02x, wanted 'R'", n,
						    buf[32768 + n]);
			}
			printf("READ %d: %s after %.3f s\n", i, ibv_wc_status_str(wc.status),
			       now() - t0);
		}
		return 0;
	}
	if (uc) {
		static const struct { uint32_t len; char c1; uint32_t n1; char c2; } want[2] = {
			{ 100, 'O', 100, 0 }, { 1074, 'F', 1024, 'L' } };
		double end = now() + 3;
		int got = 0;

		while (now() < end) {
			n = ibv_poll_cq(cq, 1, &wc);
			if (n <= 0) {
				usleep(10000);
				continue;
			}
			if (got >= 2)
				die("a third message arrived (wr_id %llu, %u bytes): one with a lost or "
				    "reordered packet was not dropped", (unsigned long long)wc.wr_id,
				    wc.byte_len);
			if (wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)got ||
			    wc.byte_len != want[got].len)
				die("message %d: %s, wr_id %llu, %u bytes; wanted success, wr_id %d, %u "
				    "bytes", got, ibv_wc_status_str(wc.status),
				    (unsigned long long)wc.wr_id, wc.byte_len, got, want[got].len);
			for (i = 0; i < (int)want[got].len; i++) {
				char c = i < (int)want[got].n1 ? want[got].c1 : want[got].c2;

				if (buf[16384 + got * 8192 + i] != (uint8_t)c)
					die("message %d: byte %d is 0x%02x, wanted '%c'", got, i,
					    buf[16384 + got * 8192 + i], c);
			}
			got++;
		}
		if (got != 2)
			die("%d of the 2 whole messages arrived", got);
		if (ibv_query_qp(qp, &a, IBV_QP_STATE, &qi))
			die("query_qp");
		printf("uc: the 2 whole messages arrived in receives 0 and 1, the 3 broken ones were "
		       "dropped; state %s\n", state_name(a.qp_state));
		return a.qp_state == IBV_QPS_RTS ? 0 : 1;
	}
	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &qi))
		die("query_qp");
	printf("state %s\n", state_name(a.qp_state));
	return 0;
}
