// SPDX-License-Identifier: GPL-2.0
/* rxe_conform.c - the victim side of the conformance harness (tests/driver/rxe_conform.py). */

/*
 * Usage: rxe_conform DEVICE GID_INDEX PEER_IPV4
 * One RC QP at a time on DEVICE, connected (GID_INDEX) to QP 0x123 at PEER_IPV4, which
 * rxe_conform.py plays with hand-made packets. Commands on stdin, one per line; every answer ends
 * with a line "end":
 *   qp RQ_PSN SQ_PSN   destroy the QP before (its completions polled off), create a new one
 *                      (path MTU 1024, max_dest_rd_atomic 4, timeout 18, retry_cnt 7,
 *                      rnr_retry 7), refill the 64 KiB MR ("SECRET" in [0, 16K), zeros above),
 *                      post 8 receives of 2 KiB (wr_id 0-7, at 32K + 2K * wr_id);
 *                      prints "info QPN RKEY VA"
 *   send LEN           post a signaled SEND of LEN bytes of 'S' (from 48K), wr_id 100 up
 *   read LEN           post a signaled READ of LEN bytes (into 56K, zeroed first) of the peer's
 *                      va 0x10000 rkey 0x42, wr_id 100 up
 *   state              "state NAME RQ_PSN SQ_PSN"
 *   poll MS N          completions until N came or MS ms passed: "wc WR_ID STATUS OPCODE LEN
 *                      FILL" each, FILL the byte value of a receive's or a READ's buffer when
 *                      all its LEN bytes have it, -1 when not
 *   mem OFF LEN        "mem FILL" of the MR's bytes [OFF, OFF + LEN)
 * Exit 0 at end of input, 1 when a verb fails.
 */
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LEN	65536
#define RECV_AT	32768
#define SEND_AT	49152
#define READ_AT	57344

#define die(...) do { fprintf(stderr, "rxe_conform: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static struct ibv_qp *qp;
static uint8_t *buf;
static union ibv_gid dgid;
static int gidx;
static uint64_t next_wr = 100;
static uint32_t read_len;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *state_name(enum ibv_qp_state s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

/* The byte value all of [p, p + n) has, or -1. */
static int fill(const uint8_t *p, size_t n)
{
	size_t i;

	if (!n)
		return -1;
	for (i = 1; i < n; i++)
		if (p[i] != p[0])
			return -1;
	return p[0];
}

static void new_qp(uint32_t rq_psn, uint32_t sq_psn)
{
	struct ibv_qp_init_attr init = {};
	struct ibv_qp_attr a = {};
	struct ibv_wc wc;
	int i;

	if (qp && ibv_destroy_qp(qp))
		die("destroy_qp");
	while (ibv_poll_cq(cq, 1, &wc) > 0)
		;
	init.send_cq = init.recv_cq = cq;
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = 8;
	init.cap.max_recv_wr = 16;
	init.cap.max_send_sge = init.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &init);
	if (!qp)
		die("create_qp");
	for (i = 0; i < LEN; i++)
		buf[i] = i < 16384 ? "SECRET"[i % 6] : 0;

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = 0x123;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
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
	a.sq_psn = sq_psn;
	a.timeout = 18;		/* 1.07 s: no resend within a case's first second */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify RTS");
	for (i = 0; i < 8; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf + RECV_AT + i * 2048, .length = 2048,
				       .lkey = mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_recv(qp, &rwr, &bad))
			die("post_recv");
	}
	printf("info %u %u %llu\n", qp->qp_num, mr->rkey, (unsigned long long)(uintptr_t)buf);
}

static void post(int read, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf + (read ? READ_AT : SEND_AT), .length = len,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = { .wr_id = next_wr++, .sg_list = &sge, .num_sge = 1,
				  .opcode = read ? IBV_WR_RDMA_READ : IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED,
				  .wr.rdma = { .remote_addr = 0x10000, .rkey = 0x42 } };
	struct ibv_send_wr *bad;

	if (len > 4096)
		die("post: %u bytes, 4096 at most", len);
	memset(buf + (read ? READ_AT : SEND_AT), read ? 0 : 'S', len);
	if (read)
		read_len = len;
	if (ibv_post_send(qp, &wr, &bad))
		printf("post failed\n");
	else
		printf("posted %llu\n", (unsigned long long)wr.wr_id);
}

static void poll(int ms, int want)
{
	double end = now() + ms / 1000.0;
	struct ibv_wc wc;
	char status[64], *p;
	int n, got = 0;

	while (got < want && now() < end) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			die("poll_cq");
		if (!n) {
			usleep(1000);
			continue;
		}
		got++;
		n = -1;
		if (wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV && wc.wr_id < 8)
			n = fill(buf + RECV_AT + wc.wr_id * 2048, wc.byte_len);
		else if (wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RDMA_READ)
			n = fill(buf + READ_AT, read_len);
		snprintf(status, sizeof(status), "%s", wc.status == IBV_WC_SUCCESS ? "SUCCESS" :
			 ibv_wc_status_str(wc.status));
		for (p = status; *p; p++)	/* one word: "remote_access_error" */
			if (*p == ' ')
				*p = '_';
		printf("wc %llu %s %d %u %d\n", (unsigned long long)wc.wr_id, status,
		       wc.status == IBV_WC_SUCCESS ? (int)wc.opcode : -1,
		       wc.status == IBV_WC_SUCCESS ? wc.byte_len : 0, n);
	}
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct in_addr peer;
	char line[256], cmd[32];
	unsigned long x, y;
	int i, n;

	if (argc != 4 || inet_pton(AF_INET, argv[3], &peer) != 1) {
		fprintf(stderr, "usage: rxe_conform DEVICE GID_INDEX PEER_IPV4\n");
		return 2;
	}
	gidx = atoi(argv[2]);
	dgid.raw[10] = dgid.raw[11] = 0xff;
	memcpy(&dgid.raw[12], &peer, 4);
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("no device %s", argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	buf = aligned_alloc(4096, LEN);
	if (!pd || !cq || !buf)
		die("alloc_pd/create_cq");
	mr = ibv_reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		die("reg_mr");
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		x = y = 0;
		if (sscanf(line, "%31s %lu %lu", cmd, &x, &y) < 1)
			continue;
		if (!strcmp(cmd, "qp")) {
			new_qp(x, y);
		} else if (!qp) {
			printf("no qp\n");
		} else if (!strcmp(cmd, "send") || !strcmp(cmd, "read")) {
			post(cmd[0] == 'r', x);
		} else if (!strcmp(cmd, "state")) {
			struct ibv_qp_attr a;
			struct ibv_qp_init_attr qi;

			if (ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_RQ_PSN | IBV_QP_SQ_PSN, &qi))
				die("query_qp");
			printf("state %s %u %u\n", state_name(a.qp_state), a.rq_psn, a.sq_psn);
		} else if (!strcmp(cmd, "poll")) {
			poll(x, y);
		} else if (!strcmp(cmd, "mem")) {
			printf("mem %d\n", x + y <= LEN ? fill(buf + x, y) : -1);
		} else {
			printf("unknown command %s\n", cmd);
		}
		printf("end\n");
	}
	return 0;
}
