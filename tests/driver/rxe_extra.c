// SPDX-License-Identifier: GPL-2.0
/* rxe_extra.c - checks the verbs beyond the RC basics: SRQ QP events, CQ resize, UC QPs. */

/*
 * Usage: rxe_extra DEVICE GID_INDEX TEST
 * Every test builds its own QPs on DEVICE, connected to each other through GID_INDEX (the
 * device loops the packets back), runs, and prints "ok TEST" (exit 0) or a message (exit 1).
 *   last-wqe        an RC QP on an SRQ moved to ERR by its consumer raises
 *                   IBV_EVENT_QP_LAST_WQE_REACHED once; the SRQ keeps its receives for others
 *   last-wqe-fault  the same after a fault (a WRITE with a bad rkey): QP_FATAL, then LAST_WQE
 *   last-wqe-no-srq a QP without an SRQ moved to ERR raises no LAST_WQE_REACHED
 *   resize-cq       ibv_resize_cq: growing keeps the unpolled completions in order and makes
 *                   room for more; shrinking below what waits, 0 entries or more than
 *                   max_cqe is EINVAL and changes nothing; shrinking an empty CQ works
 *   resize-srq      ibv_modify_srq(IBV_SRQ_MAX_WR): a full SRQ grown keeps its receives (they
 *                   take the next SENDs in the order they were posted) and takes more than
 *                   it had room for; fewer slots than receives are posted, fewer than the
 *                   armed limit, 0 or more than max_srq_wr is EINVAL and changes nothing;
 *                   an empty SRQ shrinks and still serves; the limit event still fires
 *   uc-data         UC: RDMA WRITE (with and without immediate) and SEND with immediate of
 *                   1 byte to 256 KiB land byte for byte; no ACK is needed for completion
 *   uc-drop         UC: a WRITE with a bad rkey, a SEND without a receive posted and a SEND
 *                   too long for its receive are dropped silently (the sender completes with
 *                   success, the QP stays in RTS, the receive WQE serves the next message)
 *   uc-read         UC: an RDMA READ completes with a local QP operation error
 *   mcast           UD multicast through ibv_attach_mcast (no RDMA CM): the first attach
 *                   joins 239.1.2.3 on the netdev (/proc/net/igmp), a SEND to the group
 *                   reaches every attached QP and no other, detach stops it, the last detach
 *                   leaves the group; attaching a unicast GID, or detaching a QP that is not
 *                   attached, is EINVAL
 *   mcast-rc        attaching an RC QP to a group is EINVAL
 *   post-state      as stock 6.1: ibv_post_send on a QP in RESET, INIT or RTR returns EINVAL
 *                   (the doorbell refuses it); in RTS a WRITE completes; a QP moved back to
 *                   RESET refuses again; a QP in ERR takes the send and flushes it
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <net/if.h>

#define BUF	(1 << 20)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq[3];
static struct ibv_qp *qp[3];
static struct ibv_srq *srq;
static struct ibv_mr *mr;
static uint8_t *buf;
static int gidx;

#define die(...) do { fprintf(stderr, "rxe_extra: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

static void open_dev(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	int i;

	for (i = 0; l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name))
			break;
	if (!l || !l[i] || !(ctx = ibv_open_device(l[i])))
		die("no device %s", name);
	pd = ibv_alloc_pd(ctx);
	buf = aligned_alloc(4096, BUF);
	if (!pd || !buf)
		die("alloc_pd");
	memset(buf, 0, BUF);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ);
	if (!mr)
		die("reg_mr: %s", strerror(errno));
	/* async events are read with poll() and a timeout */
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
}

/* QP @i of @type with its own CQ (of @cqe entries), on the SRQ when there is one. */
static void make_qp(int i, enum ibv_qp_type type, int cqe)
{
	struct ibv_qp_init_attr ia = {};

	cq[i] = ibv_create_cq(ctx, cqe, NULL, NULL, 0);
	if (!cq[i])
		die("create_cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = cq[i];
	ia.srq = srq;
	ia.qp_type = type;
	ia.cap.max_send_wr = 256;
	ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 2;
	qp[i] = ibv_create_qp(pd, &ia);
	if (!qp[i])
		die("create_qp: %s", strerror(errno));
}

/* Move QP @i towards QP @peer (RC or UC) through the loopback GID, up to state @upto. */
static void connect_upto(int i, int peer, enum ibv_qp_state upto)
{
	int rc = qp[i]->qp_type == IBV_QPT_RC;
	struct ibv_qp_attr a = {};
	union ibv_gid gid;

	if (ibv_query_gid(ctx, 1, gidx, &gid))
		die("query_gid");
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | (rc ? IBV_ACCESS_REMOTE_READ : 0);
	if (ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify INIT: %s", strerror(errno));
	if (upto == IBV_QPS_INIT)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp[peer]->qp_num;
	a.rq_psn = 100 + peer;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  (rc ? IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER : 0)))
		die("modify RTR: %s", strerror(errno));
	if (upto == IBV_QPS_RTR)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 3;
	a.rnr_retry = 3;
	a.sq_psn = 100 + i;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  (rc ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			   IBV_QP_MAX_QP_RD_ATOMIC : 0)))
		die("modify RTS: %s", strerror(errno));
}

/* Connect QP @i to QP @peer (RC or UC) through the loopback GID: RTS. */
static void connect_qp(int i, int peer)
{
	connect_upto(i, peer, IBV_QPS_RTS);
}

static void set_state(int i, enum ibv_qp_state st)
{
	struct ibv_qp_attr a = { .qp_state = st };

	if (ibv_modify_qp(qp[i], &a, IBV_QP_STATE))
		die("modify QP %d to state %d: %s", i, st, strerror(errno));
}

/* The next completion on CQ @i, waiting up to 5 s; *got = 0 when none came. */
static struct ibv_wc poll_wc(int i, int *got)
{
	struct ibv_wc wc = {};
	int n, spins = 0;

	while (!(n = ibv_poll_cq(cq[i], 1, &wc)) && ++spins < 50 * 1000)
		usleep(100);
	if (n < 0)
		die("poll_cq");
	*got = n;
	return wc;
}

static struct ibv_wc wait_wc(int i)
{
	int got;
	struct ibv_wc wc = poll_wc(i, &got);

	if (!got)
		die("no completion on CQ %d", i);
	return wc;
}

static void expect_wc(int i, enum ibv_wc_status st, enum ibv_wc_opcode op, uint64_t wr_id)
{
	struct ibv_wc wc = wait_wc(i);

	if (wc.status != st || (st == IBV_WC_SUCCESS && wc.opcode != op) || wc.wr_id != wr_id)
		die("CQ %d: status %s opcode %d wr_id %llu, wanted %s opcode %d wr_id %llu", i,
		    ibv_wc_status_str(wc.status), wc.opcode, (unsigned long long)wc.wr_id,
		    ibv_wc_status_str(st), op, (unsigned long long)wr_id);
}

/* No completion on CQ @i within @ms milliseconds. */
static void expect_no_wc(int i, int ms)
{
	struct ibv_wc wc;

	usleep(ms * 1000);
	if (ibv_poll_cq(cq[i], 1, &wc) != 0)
		die("CQ %d: unexpected completion, status %s wr_id %llu", i,
		    ibv_wc_status_str(wc.status), (unsigned long long)wc.wr_id);
}

static void post_send(int i, enum ibv_wr_opcode op, uint64_t wr_id, uint64_t off, uint32_t len,
		      uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge s = { (uintptr_t)buf + off, len, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = htonl(0xabc00000 | (uint32_t)wr_id);
	if (ibv_post_send(qp[i], &wr, &bad))
		die("post_send: %s", strerror(errno));
}

static void post_srq_recv(uint64_t wr_id, uint64_t off, uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)buf + off, len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1 }, *bad;

	if (ibv_post_srq_recv(srq, &wr, &bad))
		die("post_srq_recv: %s", strerror(errno));
}

/* Port and device events (a new device's GIDs appear for a while): not about our QPs. */
static int port_event(int type)
{
	return type == IBV_EVENT_PORT_ACTIVE || type == IBV_EVENT_PORT_ERR ||
	       type == IBV_EVENT_LID_CHANGE || type == IBV_EVENT_PKEY_CHANGE ||
	       type == IBV_EVENT_SM_CHANGE || type == IBV_EVENT_CLIENT_REREGISTER ||
	       type == IBV_EVENT_GID_CHANGE;
}

/* The next QP, SRQ or CQ event within @ms milliseconds: its type, or -1 when none came. */
static int next_event(int ms, struct ibv_qp **on)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int type;

	do {
		if (poll(&p, 1, ms) <= 0 || ibv_get_async_event(ctx, &ev))
			return -1;
		type = ev.event_type;
		*on = ev.element.qp;
		ibv_ack_async_event(&ev);
	} while (port_event(type));
	return type;
}

static void expect_event(enum ibv_event_type want, int i)
{
	struct ibv_qp *on = NULL;
	int got = next_event(5000, &on);

	if (got < 0)
		die("no %s event within 5 s", ibv_event_type_str(want));
	if (got != (int)want)
		die("event %s, wanted %s", ibv_event_type_str(got), ibv_event_type_str(want));
	if (on != qp[i])
		die("%s on another QP", ibv_event_type_str(want));
}

static void expect_no_event(int ms)
{
	struct ibv_qp *on;
	int got = next_event(ms, &on);

	if (got >= 0)
		die("unexpected event %s", ibv_event_type_str(got));
}

/*
 * QP 0 and QP 2 receive from an SRQ; QP 1 sends to QP 0. One SEND lands in QP 0 through the
 * SRQ, four more receives stay posted.
 */
static void srq_setup(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 1 } };
	int k;

	srq = ibv_create_srq(pd, &sa);
	if (!srq)
		die("create_srq: %s", strerror(errno));
	make_qp(0, IBV_QPT_RC, 64);
	make_qp(2, IBV_QPT_RC, 64);
	srq = NULL;
	make_qp(1, IBV_QPT_RC, 64);
	srq = qp[0]->srq;
	connect_qp(0, 1);
	connect_qp(1, 0);
	for (k = 0; k < 5; k++)
		post_srq_recv(1000 + k, 4096 * (k + 1), 4096);
	post_send(1, IBV_WR_SEND, 1, 0, 100, 0, 0);
	expect_wc(1, IBV_WC_SUCCESS, IBV_WC_SEND, 1);
	expect_wc(0, IBV_WC_SUCCESS, IBV_WC_RECV, 1000);
}

/* The SRQ's remaining receives were not flushed: QP 2 (on the same SRQ) takes the next one. */
static void srq_still_serves(void)
{
	connect_qp(2, 1);
	set_state(1, IBV_QPS_RESET);
	connect_qp(1, 2);
	post_send(1, IBV_WR_SEND, 2, 0, 100, 0, 0);
	expect_wc(1, IBV_WC_SUCCESS, IBV_WC_SEND, 2);
	expect_wc(2, IBV_WC_SUCCESS, IBV_WC_RECV, 1001);
}

static int t_last_wqe(void)
{
	expect_no_event(200);
	set_state(0, IBV_QPS_ERR);
	expect_event(IBV_EVENT_QP_LAST_WQE_REACHED, 0);
	expect_no_event(500);		/* once */
	expect_no_wc(0, 100);		/* the SRQ's receives are not flushed through QP 0 */
	/* Once per entry into the error state: RESET, INIT, then ERR again, raises it again. */
	set_state(0, IBV_QPS_RESET);
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

		if (ibv_modify_qp(qp[0], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
			die("modify QP 0 RESET -> INIT: %s", strerror(errno));
	}
	set_state(0, IBV_QPS_ERR);
	expect_event(IBV_EVENT_QP_LAST_WQE_REACHED, 0);
	expect_no_event(300);
	srq_still_serves();
	return 0;
}

static int t_last_wqe_fault(void)
{
	int type[8], n = 0, k, fatal0 = -1, last0 = -1, fatal1 = -1;
	struct ibv_qp *on[8];

	/* QP 1 writes with a bad rkey: QP 0's responder NAKs it and goes to the error state. */
	post_send(1, IBV_WR_RDMA_WRITE, 3, 0, 100, (uintptr_t)buf, mr->rkey ^ 0x5a);
	expect_wc(1, IBV_WC_REM_ACCESS_ERR, 0, 3);
	while (n < 8 && (type[n] = next_event(n < 3 ? 5000 : 1000, &on[n])) >= 0)
		n++;
	for (k = 0; k < n; k++) {
		int i = on[k] == qp[0] ? 0 : on[k] == qp[1] ? 1 : -1;

		printf("event %s on QP %d\n", ibv_event_type_str(type[k]), i);
		if (i == 0 && type[k] == IBV_EVENT_QP_FATAL && fatal0 < 0)
			fatal0 = k;
		else if (i == 0 && type[k] == IBV_EVENT_QP_LAST_WQE_REACHED && last0 < 0)
			last0 = k;
		else if (i == 1 && type[k] == IBV_EVENT_QP_FATAL && fatal1 < 0)
			fatal1 = k;	/* its WQE failed: the requester's QP is in error too */
		else
			die("unexpected event %s on QP %d", ibv_event_type_str(type[k]), i);
	}
	if (fatal0 < 0 || last0 < 0)
		die("QP 0: QP_FATAL %s, LAST_WQE_REACHED %s", fatal0 < 0 ? "missing" : "seen",
		    last0 < 0 ? "missing" : "seen");
	if (last0 < fatal0)
		die("QP 0: LAST_WQE_REACHED came before QP_FATAL");
	return 0;
}

static int t_last_wqe_no_srq(void)
{
	set_state(1, IBV_QPS_ERR);
	expect_no_event(1000);
	return 0;
}

/* QP 0 (its CQ 0 has @cqe entries) and QP 1 connected; RC, one CQ per QP. */
static void rc_pair_small_cq(void)
{
	make_qp(0, IBV_QPT_RC, 16);
	make_qp(1, IBV_QPT_RC, 64);
	connect_qp(0, 1);
	connect_qp(1, 0);
}

/* @n signalled RDMA WRITEs from QP 0, wr_ids @first.., all completed before it returns. */
static void writes(uint64_t first, int n)
{
	int k;

	for (k = 0; k < n; k++)
		post_send(0, IBV_WR_RDMA_WRITE, first + k, 0, 64, (uintptr_t)buf + 8192, mr->rkey);
	usleep(500 * 1000);	/* loopback: done within the doorbell; time to spare */
}

static void resize_fails(int cqe, const char *why)
{
	int err = ibv_resize_cq(cq[0], cqe);

	if (err != EINVAL)
		die("resize to %d (%s): %s, wanted EINVAL", cqe, why, err ? strerror(err) : "success");
}

static int t_resize_cq(void)
{
	struct ibv_device_attr da;
	int k, err, before;

	if (ibv_query_device(ctx, &da))
		die("query_device");
	before = cq[0]->cqe;
	if (before < 15)
		die("a CQ of 16 has %d entries", before);
	writes(0, 10);				/* 10 waiting */
	expect_wc(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 0);
	expect_wc(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 1);
	/* grow with 8 waiting */
	err = ibv_resize_cq(cq[0], 200);
	if (err)
		die("grow 16 -> 200: %s", strerror(err));
	if (cq[0]->cqe < 200)
		die("grown CQ reports %d entries", cq[0]->cqe);
	writes(10, 150);			/* would overflow the old 16 */
	for (k = 2; k < 10; k++)
		expect_wc(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, k);
	for (k = 10; k < 160; k++)
		expect_wc(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, k);
	expect_no_wc(0, 50);
	/* refusals: each leaves the CQ as it was */
	writes(200, 40);			/* 40 waiting */
	resize_fails(20, "fewer entries than completions waiting");
	resize_fails(0, "zero entries");
	resize_fails(-1, "negative");
	resize_fails(da.max_cqe + 1, "more than max_cqe");
	if (cq[0]->cqe < 200)
		die("a refused resize changed the CQ to %d entries", cq[0]->cqe);
	/* grow again with 40 waiting, to max_cqe */
	err = ibv_resize_cq(cq[0], da.max_cqe);
	if (err)
		die("grow to max_cqe %d: %s", da.max_cqe, strerror(err));
	for (k = 200; k < 240; k++)
		expect_wc(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, k);
	/* shrink an empty CQ; it works at its new size */
	err = ibv_resize_cq(cq[0], 4);
	if (err)
		die("shrink an empty CQ to 4: %s", strerror(err));
	if (cq[0]->cqe < 4 || cq[0]->cqe > 15)
		die("shrunk CQ reports %d entries", cq[0]->cqe);
	writes(300, 3);
	for (k = 300; k < 303; k++)
		expect_wc(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, k);
	expect_no_wc(0, 50);
	printf("cqe %d -> 200 -> %d -> %d, 240 completions in order\n", before, da.max_cqe,
	       cq[0]->cqe);
	return 0;
}

static void fill(uint64_t off, uint32_t n, unsigned int seed)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		buf[off + k] = (uint8_t)(k * 13 + seed);
}

static int srq_max_wr(void)
{
	struct ibv_srq_attr a;

	if (ibv_query_srq(srq, &a))
		die("query_srq: %s", strerror(errno));
	return a.max_wr;
}

static void srq_resize_fails(int max_wr, int limit, const char *why)
{
	struct ibv_srq_attr a = { .max_wr = max_wr, .srq_limit = limit };
	int err = ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR | (limit ? IBV_SRQ_LIMIT : 0));

	if (err != EINVAL)
		die("resize the SRQ to %d (%s): %s, wanted EINVAL", max_wr, why,
		    err ? strerror(err) : "success");
}

/* Receive @k of the SRQ test: 256 bytes in the upper half of the buffer. */
static void post_srq_recv_k(uint64_t k)
{
	post_srq_recv(k, BUF / 2 + (k % 1024) * 256, 256);
}

/* @n SENDs of 100 bytes from QP 1 to QP 0 (through the SRQ); their receives must complete
 * with wr_ids @first, @first + 1, ... and the bytes sent. */
static void srq_sends(uint64_t first, int n)
{
	int k, j, b;

	for (k = 0; k < n; k += b) {
		b = n - k < 32 ? n - k : 32;
		for (j = 0; j < b; j++) {
			fill(0, 100, (unsigned int)(first + k + j));
			post_send(1, IBV_WR_SEND, k + j, 0, 100, 0, 0);
			expect_wc(1, IBV_WC_SUCCESS, IBV_WC_SEND, k + j);
		}
		for (j = 0; j < b; j++) {
			uint64_t id = first + k + j;
			struct ibv_wc wc = wait_wc(0);
			uint8_t *got = buf + BUF / 2 + (id % 1024) * 256;
			int i;

			if (wc.status != IBV_WC_SUCCESS || wc.wr_id != id || wc.byte_len != 100)
				die("receive %d: status %s wr_id %llu byte_len %u, wanted wr_id %llu, 100 bytes",
				    k + j, ibv_wc_status_str(wc.status), (unsigned long long)wc.wr_id,
				    wc.byte_len, (unsigned long long)id);
			for (i = 0; id >= 1005 && i < 100; i++)	/* srq_setup's are elsewhere */
				if (got[i] != (uint8_t)(i * 13 + id))
					die("receive %llu: byte %d is %u, wanted %u",
					    (unsigned long long)id, i, got[i], (uint8_t)(i * 13 + id));
		}
	}
}

static int t_resize_srq(void)
{
	struct ibv_device_attr da;
	struct ibv_srq_attr a = {};
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_sge sg = { (uintptr_t)buf + BUF / 2, 256, mr->lkey };
	int before, full, grown, shrunk, err, k;

	if (ibv_query_device(ctx, &da))
		die("query_device");
	/* srq_setup left receives 1001..1004 posted: fill it up */
	before = srq_max_wr();
	wr.sg_list = &sg;
	wr.num_sge = 1;
	for (k = 1005;; k++) {
		wr.wr_id = k;
		sg.addr = (uintptr_t)buf + BUF / 2 + (k % 1024) * 256;
		if (ibv_post_srq_recv(srq, &wr, &bad))
			break;
		if (k > 1005 + 2 * before)
			die("the SRQ of %d takes receive after receive", before);
	}
	full = k - 1001;		/* receives 1001 .. k - 1 are posted */
	if (full < before)
		die("the SRQ of max_wr %d is full at %d receives", before, full);
	/* refusals: each leaves the SRQ as it was */
	/* half: a ring rounded up from half of them still holds fewer (full is 2^n - 1) */
	srq_resize_fails(full / 2, 0, "fewer slots than receives posted");
	srq_resize_fails(0, 0, "zero");
	srq_resize_fails(da.max_srq_wr + 1, 0, "more than max_srq_wr");
	srq_resize_fails(full + 100, full + 200, "fewer than the limit asked");
	if (srq_max_wr() != before)
		die("a refused resize changed max_wr from %d to %d", before, srq_max_wr());
	/* grow the full SRQ */
	a.max_wr = 4 * full;
	err = ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR);
	if (err)
		die("grow the SRQ %d -> %d: %s", before, 4 * full, strerror(err));
	grown = srq_max_wr();
	if (grown < 4 * full)
		die("the grown SRQ reports max_wr %d, asked %d", grown, 4 * full);
	for (k = 1001 + full; k < 1001 + 3 * full; k++)	/* more than the old ring held */
		post_srq_recv_k(k);
	srq_sends(1001, 3 * full);	/* the old receives first, in order, then the new */
	expect_no_wc(0, 50);
	/* an empty SRQ shrinks, serves, and its limit event still fires */
	a.max_wr = 8;
	err = ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR);
	if (err)
		die("shrink the empty SRQ to 8: %s", strerror(err));
	shrunk = srq_max_wr();
	if (shrunk < 8 || shrunk >= before)
		die("the shrunk SRQ reports max_wr %d", shrunk);
	for (k = 5000; k < 5008; k++)
		post_srq_recv_k(k);
	a.srq_limit = 4;
	if (ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT))
		die("arm the limit: %s", strerror(errno));
	srq_sends(5000, 5);		/* 3 left: below the limit of 4 */
	{
		struct ibv_qp *on = NULL;	/* the event's element, here the SRQ */
		int got = next_event(5000, &on);

		if (got != IBV_EVENT_SRQ_LIMIT_REACHED || (void *)on != (void *)srq)
			die("after the resize: event %s, wanted SRQ_LIMIT_REACHED on the SRQ",
			    got < 0 ? "none" : ibv_event_type_str(got));
	}
	srq_sends(5005, 3);
	expect_no_wc(0, 50);
	printf("max_wr %d (full at %d) -> %d -> %d, %d receives in order\n", before, full, grown,
	       shrunk, 3 * full + 8);
	return 0;
}

static void uc_pair(void)
{
	make_qp(0, IBV_QPT_UC, 256);
	make_qp(1, IBV_QPT_UC, 256);
	connect_qp(0, 1);
	connect_qp(1, 0);
}

static void post_recv(int i, uint64_t wr_id, uint64_t off, uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)buf + off, len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1 }, *bad;

	if (ibv_post_recv(qp[i], &wr, &bad))
		die("post_recv: %s", strerror(errno));
}

static void expect_recv(int i, uint64_t wr_id, enum ibv_wc_opcode op, uint32_t len, int imm)
{
	struct ibv_wc wc = wait_wc(i);

	if (wc.status || wc.opcode != op || wc.wr_id != wr_id || wc.byte_len != len ||
	    !!(wc.wc_flags & IBV_WC_WITH_IMM) != !!imm ||
	    (imm && wc.imm_data != htonl(0xabc00000 | (uint32_t)imm)))
		die("receive: status %s opcode %d wr_id %llu len %u flags %x imm %x; wanted "
		    "opcode %d wr_id %llu len %u imm %d", ibv_wc_status_str(wc.status), wc.opcode,
		    (unsigned long long)wc.wr_id, wc.byte_len, wc.wc_flags, ntohl(wc.imm_data), op,
		    (unsigned long long)wr_id, len, imm);
}

static void qp_state_is(int i, enum ibv_qp_state want)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp[i], &a, IBV_QP_STATE, &ia))
		die("query_qp");
	if (a.qp_state != want)
		die("QP %d in state %d, wanted %d", i, a.qp_state, want);
}

#define SRC	0
#define DST	(BUF / 2)

static int t_uc_data(void)
{
	static const uint32_t sizes[] = { 1, 3, 1023, 1024, 1025, 4096, 65536 + 13, 256 * 1024 };
	unsigned int k, spins;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint32_t n = sizes[k];

		fill(SRC, n, k);
		memset(buf + DST, 0, BUF / 2);
		post_send(0, IBV_WR_RDMA_WRITE, k, SRC, n, (uintptr_t)buf + DST + 7, mr->rkey);
		expect_wc(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, k);
		/* UC: the sender's completion does not wait for the data to land */
		for (spins = 0; memcmp(buf + SRC, buf + DST + 7, n) && spins < 5000; spins++)
			usleep(1000);
		if (memcmp(buf + SRC, buf + DST + 7, n) || buf[DST + 6] || buf[DST + 7 + n])
			die("UC WRITE of %u bytes: data differs", n);

		fill(SRC, n, k + 100);
		post_recv(1, 500 + k, DST + BUF / 4, 0);
		post_send(0, IBV_WR_RDMA_WRITE_WITH_IMM, k + 1, SRC, n, (uintptr_t)buf + DST, mr->rkey);
		expect_wc(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, k + 1);
		expect_recv(1, 500 + k, IBV_WC_RECV_RDMA_WITH_IMM, n, k + 1);
		if (memcmp(buf + SRC, buf + DST, n))
			die("UC WRITE with immediate of %u bytes: data differs", n);

		if (n > BUF / 4)
			continue;
		fill(SRC, n, k + 200);
		memset(buf + DST, 0, BUF / 2);
		post_recv(1, 600 + k, DST + 3, BUF / 4);
		post_send(0, IBV_WR_SEND_WITH_IMM, k + 2, SRC, n, 0, 0);
		expect_wc(0, IBV_WC_SUCCESS, IBV_WC_SEND, k + 2);
		expect_recv(1, 600 + k, IBV_WC_RECV, n, k + 2);
		if (memcmp(buf + SRC, buf + DST + 3, n) || buf[DST + 3 + n])
			die("UC SEND of %u bytes: data differs", n);
	}
	qp_state_is(0, IBV_QPS_RTS);
	qp_state_is(1, IBV_QPS_RTS);
	return 0;
}

static int t_uc_drop(void)
{
	/* a WRITE with a bad rkey: the sender cannot know, the receiver drops it */
	fill(SRC, 5000, 1);
	memset(buf + DST, 0, 8192);
	post_send(0, IBV_WR_RDMA_WRITE, 1, SRC, 5000, (uintptr_t)buf + DST, mr->rkey ^ 0x33);
	expect_wc(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 1);
	usleep(50000);
	if (buf[DST] || buf[DST + 4999])
		die("a WRITE with a bad rkey wrote");
	expect_no_wc(1, 50);
	/* a SEND without a receive posted: dropped, no RNR; the next one lands */
	post_send(0, IBV_WR_SEND, 2, SRC, 3000, 0, 0);
	expect_wc(0, IBV_WC_SUCCESS, IBV_WC_SEND, 2);
	usleep(50000);
	fill(SRC, 3000, 2);
	post_recv(1, 700, DST, 4096);
	post_send(0, IBV_WR_SEND, 3, SRC, 2000, 0, 0);
	expect_wc(0, IBV_WC_SUCCESS, IBV_WC_SEND, 3);
	expect_recv(1, 700, IBV_WC_RECV, 2000, 0);
	if (memcmp(buf + SRC, buf + DST, 2000))
		die("the SEND after a dropped one: data differs");
	/* a SEND too long for the receive: dropped; that receive takes the next message */
	post_recv(1, 701, DST, 1500);
	post_send(0, IBV_WR_SEND, 4, SRC, 2500, 0, 0);
	expect_wc(0, IBV_WC_SUCCESS, IBV_WC_SEND, 4);
	expect_no_wc(1, 100);
	fill(SRC, 1500, 3);
	post_send(0, IBV_WR_SEND_WITH_IMM, 5, SRC, 1200, 0, 0);
	expect_wc(0, IBV_WC_SUCCESS, IBV_WC_SEND, 5);
	expect_recv(1, 701, IBV_WC_RECV, 1200, 5);
	if (memcmp(buf + SRC, buf + DST, 1200))
		die("the SEND after a too long one: data differs");
	/* still connected both ways */
	post_recv(0, 800, DST + 8192, 64);
	post_send(1, IBV_WR_SEND, 6, SRC, 64, 0, 0);
	expect_wc(1, IBV_WC_SUCCESS, IBV_WC_SEND, 6);
	expect_recv(0, 800, IBV_WC_RECV, 64, 0);
	qp_state_is(0, IBV_QPS_RTS);
	qp_state_is(1, IBV_QPS_RTS);
	return 0;
}

static int t_uc_read(void)
{
	post_send(0, IBV_WR_RDMA_READ, 1, SRC, 64, (uintptr_t)buf + DST, mr->rkey);
	expect_wc(0, IBV_WC_LOC_QP_OP_ERR, 0, 1);
	qp_state_is(0, IBV_QPS_ERR);
	return 0;
}

/* Is IPv4 group @grp (network order) joined on netdev @ndev (/proc/net/igmp)? */
static int igmp_has(const char *ndev, uint32_t grp)
{
	FILE *f = fopen("/proc/net/igmp", "r");
	char line[256], name[IF_NAMESIZE + 1];
	int in = 0, found = 0;
	unsigned int g;

	if (!f)
		die("/proc/net/igmp: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (line[0] != '\t') {	/* a device line: "IDX\tNAME : COUNT VER" */
			in = sscanf(line, "%*d %16s", name) == 1 && !strcmp(name, ndev);
			continue;
		}
		if (in && sscanf(line, " %x", &g) == 1 && g == grp)	/* raw __be32 in hex */
			found = 1;
	}
	fclose(f);
	return found;
}

#define MC_GROUP	"239.1.2.3"
#define MC_QKEY		0x11111111

static union ibv_gid mc_gid(const char *ip)
{
	union ibv_gid g = {};

	g.raw[10] = g.raw[11] = 0xff;
	inet_pton(AF_INET, ip, g.raw + 12);
	return g;
}

static void ud_pair3(void)
{
	struct ibv_qp_attr a = {};
	int i;

	for (i = 0; i < 3; i++) {
		make_qp(i, IBV_QPT_UD, 64);
		a.qp_state = IBV_QPS_INIT;
		a.pkey_index = 0;
		a.port_num = 1;
		a.qkey = MC_QKEY;
		if (ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_QKEY))
			die("UD INIT: %s", strerror(errno));
		set_state(i, IBV_QPS_RTR);
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 0;
		if (ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
			die("UD RTS: %s", strerror(errno));
	}
}

/* QP 2 sends one datagram of @len to the group; returns after its completion. */
static void mc_send(struct ibv_ah *ah, uint64_t wr_id, uint32_t len)
{
	struct ibv_sge sg = { (uintptr_t)buf, len, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;

	fill(0, len, (unsigned int)wr_id);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0xffffff;
	wr.wr.ud.remote_qkey = MC_QKEY;
	if (ibv_post_send(qp[2], &wr, &bad))
		die("post_send to the group: %s", strerror(errno));
	expect_wc(2, IBV_WC_SUCCESS, IBV_WC_SEND, wr_id);
}

/* QP @i received the datagram of @len QP 2 sent from buf[0..len) into its buffer at @off. */
static void mc_got(int i, uint64_t wr_id, uint64_t off, uint32_t len)
{
	expect_recv(i, wr_id, IBV_WC_RECV, len + 40, 0);
	if (memcmp(buf + off + 40, buf, len))
		die("QP %d: the multicast datagram's data differs", i);
}

static int t_mcast(void)
{
	union ibv_gid mgid = mc_gid(MC_GROUP), ucast;
	struct ibv_ah_attr aa = {};
	struct ibv_ah *ah;
	char ndev[IF_NAMESIZE + 1] = "eth0";
	uint32_t grp;
	const char *e = getenv("RXE_NETDEV");
	int err, k;

	if (e)
		snprintf(ndev, sizeof(ndev), "%s", e);
	inet_pton(AF_INET, MC_GROUP, &grp);
	if (igmp_has(ndev, grp))
		die("%s is a member of %s before any attach", ndev, MC_GROUP);
	if (ibv_attach_mcast(qp[0], &mgid, 0) || ibv_attach_mcast(qp[1], &mgid, 0))
		die("attach_mcast: %s", strerror(errno));
	if (!igmp_has(ndev, grp))
		die("after attach, %s is not a member of %s (/proc/net/igmp)", ndev, MC_GROUP);
	if (ibv_attach_mcast(qp[0], &mgid, 0))
		die("attaching the same QP twice: %s, wanted success", strerror(errno));
	aa.is_global = 1;
	aa.grh.dgid = mgid;
	aa.grh.sgid_index = gidx;
	aa.grh.hop_limit = 1;
	aa.port_num = 1;
	ah = ibv_create_ah(pd, &aa);
	if (!ah)
		die("create_ah for the group: %s", strerror(errno));
	for (k = 0; k < 3; k++) {
		post_recv(0, 10 + k, 8192, 4096);
		post_recv(1, 20 + k, 16384, 4096);
		post_recv(2, 30 + k, 24576, 4096);
	}
	mc_send(ah, 1, 1000);
	mc_got(0, 10, 8192, 1000);
	mc_got(1, 20, 16384, 1000);
	expect_no_wc(2, 100);		/* the sender is not attached */
	expect_no_wc(0, 0);		/* once each (the same QP attached twice is one) */
	expect_no_wc(1, 0);
	if (ibv_detach_mcast(qp[0], &mgid, 0))
		die("detach_mcast: %s", strerror(errno));
	mc_send(ah, 2, 500);
	mc_got(1, 21, 16384, 500);
	expect_no_wc(0, 100);		/* detached */
	if (!igmp_has(ndev, grp))
		die("%s left %s while QP 1 is still attached", ndev, MC_GROUP);
	if (ibv_detach_mcast(qp[1], &mgid, 0))
		die("detach_mcast: %s", strerror(errno));
	if (igmp_has(ndev, grp))
		die("after the last detach, %s is still a member of %s", ndev, MC_GROUP);
	err = ibv_detach_mcast(qp[1], &mgid, 0);
	if (err != EINVAL)
		die("detaching a QP that is not attached: %s, wanted EINVAL",
		    err ? strerror(err) : "success");
	ucast = mc_gid("192.0.2.9");
	err = ibv_attach_mcast(qp[0], &ucast, 0);
	if (err != EINVAL)
		die("attaching a unicast GID: %s, wanted EINVAL", err ? strerror(err) : "success");
	ibv_destroy_ah(ah);
	return 0;
}

static int t_mcast_rc(void)
{
	union ibv_gid mgid = mc_gid(MC_GROUP);
	int err = ibv_attach_mcast(qp[0], &mgid, 0);

	if (err != EINVAL)
		die("attaching an RC QP: %s, wanted EINVAL", err ? strerror(err) : "success");
	return 0;
}

/* ibv_post_send of one signalled RDMA WRITE on QP @i: its return value (an errno or 0). */
static int try_post(int i, uint64_t wr_id)
{
	struct ibv_sge s = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)buf + 8192;
	wr.wr.rdma.rkey = mr->rkey;
	return ibv_post_send(qp[i], &wr, &bad);
}

static void refused_in(int i, const char *state)
{
	int err = try_post(i, 99);

	if (err != EINVAL)
		die("ibv_post_send on a QP in %s: %s, wanted EINVAL", state,
		    err ? strerror(err) : "success");
}

/* QPs 0 and 1 connected (RC); QP 2 (RC) in RESET. */
static void rc_pair_and_one(void)
{
	make_qp(0, IBV_QPT_RC, 64);
	make_qp(1, IBV_QPT_RC, 64);
	make_qp(2, IBV_QPT_RC, 64);
	connect_qp(0, 1);
	connect_qp(1, 0);
}

static int t_post_state(void)
{
	int err;

	refused_in(2, "RESET");
	connect_upto(2, 1, IBV_QPS_INIT);
	refused_in(2, "INIT");
	connect_upto(2, 1, IBV_QPS_RTR);
	refused_in(2, "RTR");
	expect_no_wc(2, 200);
	if ((err = try_post(0, 1)))
		die("ibv_post_send in RTS: %s", strerror(err));
	expect_wc(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 1);
	set_state(0, IBV_QPS_RESET);
	refused_in(0, "RESET (moved back from RTS)");
	expect_no_wc(0, 200);
	set_state(1, IBV_QPS_ERR);
	if ((err = try_post(1, 2)))
		die("ibv_post_send in ERR: %s, wanted success (then a flush)", strerror(err));
	expect_wc(1, IBV_WC_WR_FLUSH_ERR, IBV_WC_RDMA_WRITE, 2);
	return 0;
}

static const struct {
	const char *name;
	void (*setup)(void);
	int (*fn)(void);
} tests[] = {
	{ "last-wqe", srq_setup, t_last_wqe },
	{ "last-wqe-fault", srq_setup, t_last_wqe_fault },
	{ "last-wqe-no-srq", srq_setup, t_last_wqe_no_srq },
	{ "resize-cq", rc_pair_small_cq, t_resize_cq },
	{ "resize-srq", srq_setup, t_resize_srq },
	{ "uc-data", uc_pair, t_uc_data },
	{ "uc-drop", uc_pair, t_uc_drop },
	{ "uc-read", uc_pair, t_uc_read },
	{ "mcast", ud_pair3, t_mcast },
	{ "mcast-rc", rc_pair_small_cq, t_mcast_rc },
	{ "post-state", rc_pair_and_one, t_post_state },
};

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc != 4)
		die("usage: rxe_extra DEVICE GID_INDEX TEST");
	gidx = atoi(argv[2]);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (strcmp(argv[3], tests[i].name))
			continue;
		open_dev(argv[1]);
		if (tests[i].setup)
			tests[i].setup();
		if (tests[i].fn())
			return 1;
		printf("ok %s\n", tests[i].name);
		return 0;
	}
	die("unknown test %s", argv[3]);
}
