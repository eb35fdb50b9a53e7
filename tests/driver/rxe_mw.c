// SPDX-License-Identifier: GPL-2.0
/* rxe_mw.c - checks memory windows (type 1 and 2) through rdma-core, over loopback. */

/*
 * Usage: rxe_mw DEVICE GID_INDEX TEST
 * Two RC QP pairs on DEVICE, connected through GID_INDEX (the device loops the packets back):
 * the owner QP 0 binds windows over "wbuf" (an MR with local write and MW bind access only,
 * no remote access of its own), the peer QP 1 uses their rkeys; QP 2 (owner side, same PD)
 * and QP 3 (its peer) are a second connection. A remote access that must fail is checked
 * for IBV_WC_REM_ACCESS_ERR on the peer, then both QPs of that connection are reset and
 * connected again. Prints "ok TEST" (exit 0) or a message (exit 1).
 *   caps          IBV_DEVICE_MEM_WINDOW, _TYPE_2B (windows bound to a QP, as stock 6.1) and
 *                 max_mw are advertised
 *   type1         ibv_alloc_mw(TYPE_1), ibv_bind_mw: completion IBV_WC_BIND_MW, the key
 *                 keeps its index and gets the provider's next low 8 bits; RDMA WRITE, READ
 *                 and fetch-and-add inside the window work byte for byte; the key from
 *                 before the bind and an access the window does not grant are remote access
 *                 errors; a rebind of length 0 retires the key; ibv_dealloc_mw of a bound
 *                 window works
 *   type2         ibv_alloc_mw(TYPE_2), IBV_WR_BIND_MW through ibv_post_send with the next
 *                 key: WRITE, READ and atomics work; IBV_WR_LOCAL_INV of it completes and
 *                 its key is then a remote access error; bound again under a new key, only
 *                 the new key works
 *   bounds        one byte past or before a window, or elsewhere inside its MR, is a remote
 *                 access error for WRITE, READ and atomics (stock 6.1 checks the MR's bounds
 *                 only)
 *   type2-qp      a type 2 window works only through the QP it was bound on: the same
 *                 rkey arriving on another QP of the same PD is a remote access error
 *   type2-rebind  binding a type 2 window that is still bound fails with IBV_WC_MW_BIND_ERR
 *   send-inv      a SEND with Invalidate naming a type 2 window's rkey completes the receive
 *                 with IBV_WC_WITH_INV and that rkey; the window's key is then refused
 *   send-inv-refused  a SEND with Invalidate of a type 1 window, or of a type 2 window
 *                 arriving on another QP than its own, fails at the sender; both windows keep
 *                 working
 *   pd            a type 1 window used through a QP of another PD is a remote access error
 *   bind-refused  binding to an MR without IBV_ACCESS_MW_BIND, or past the end of the MR,
 *                 completes with IBV_WC_MW_BIND_ERR
 *   bind-nowrite  binding a window with remote write to an MR without local write is
 *                 IBV_WC_MW_BIND_ERR (IBA C10-74)
 *   dereg-bound   ibv_dereg_mr of an MR with a bound window is EINVAL (stock 6.1's rule) and
 *                 the MR keeps working; after the window is deallocated (type 1) or
 *                 invalidated (type 2) the MR deregisters
 *   exit-bound    windows of both types left bound over an MR at exit (the kernel cleans
 *                 up the process's objects)
 *   drain         (run it as an unprivileged user) a READ of 4 MiB + 64 KiB, more than loopback
 *                 direct placement takes, through a type 2 window, and behind it on the same
 *                 QP a fenced LOCAL_INV of that window: the responder's READ bursts loop back
 *                 into nested runs of the reader, whose requester then runs the LOCAL_INV,
 *                 which waits for the window's MR to drain. Both must complete within 20 s
 *                 with the data read, and the MR deregister (issue 36: it waited for the
 *                 burst's own MR reference, below it on the stack, forever)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF	(1 << 20)
#define NQP	4

static struct ibv_context *ctx;
static struct ibv_pd *pd, *pd2;
static struct ibv_cq *cq[NQP];
static struct ibv_qp *qp[NQP];
static struct ibv_mr *mr, *wmr;	/* mr: the peers' local buffer; wmr: what windows cover */
static uint8_t *buf, *wbuf;
static int gidx;

#define die(...) do { fprintf(stderr, "rxe_mw: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

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
	pd2 = ibv_alloc_pd(ctx);
	buf = aligned_alloc(4096, BUF);
	wbuf = aligned_alloc(4096, BUF);
	if (!pd || !pd2 || !buf || !wbuf)
		die("alloc_pd");
	memset(buf, 0, BUF);
	memset(wbuf, 0, BUF);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	wmr = ibv_reg_mr(pd, wbuf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	if (!mr || !wmr)
		die("reg_mr: %s", strerror(errno));
}

static void make_qp(int i, struct ibv_pd *p)
{
	struct ibv_qp_init_attr ia = {};

	cq[i] = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!cq[i])
		die("create_cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = cq[i];
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 32;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	qp[i] = ibv_create_qp(p, &ia);
	if (!qp[i])
		die("create_qp: %s", strerror(errno));
}

static void modify(int i, struct ibv_qp_attr *a, int mask, const char *what)
{
	if (ibv_modify_qp(qp[i], a, mask))
		die("QP %d to %s: %s", i, what, strerror(errno));
}

/* Move QP @i (from RESET) to RTS, connected to QP @peer through the loopback GID. */
static void connect_qp(int i, int peer)
{
	struct ibv_qp_attr a = {};
	union ibv_gid gid;

	if (ibv_query_gid(ctx, 1, gidx, &gid))
		die("query_gid");
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	modify(i, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
	       "INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp[peer]->qp_num;
	a.rq_psn = 100 + peer;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	modify(i, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 3;
	a.rnr_retry = 3;
	a.sq_psn = 100 + i;
	a.max_rd_atomic = 4;
	modify(i, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC, "RTS");
}

static void drain_cq(int i)
{
	struct ibv_wc wc;

	while (ibv_poll_cq(cq[i], 1, &wc) > 0)
		;
}

/* Reset connection @i <-> @peer (after an error) and connect it again. */
static void reconnect(int i, int peer)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	modify(i, &a, IBV_QP_STATE, "RESET");
	modify(peer, &a, IBV_QP_STATE, "RESET");
	drain_cq(i);
	drain_cq(peer);
	connect_qp(i, peer);
	connect_qp(peer, i);
}

static void setup(void)
{
	int i;

	for (i = 0; i < NQP; i++)
		make_qp(i, pd);
	connect_qp(0, 1);
	connect_qp(1, 0);
	connect_qp(2, 3);
	connect_qp(3, 2);
}

static struct ibv_wc wait_wc(int i)
{
	struct ibv_wc wc = {};
	int n, spins = 0;

	while (!(n = ibv_poll_cq(cq[i], 1, &wc)) && ++spins < 50 * 1000)
		usleep(100);
	if (n < 0)
		die("poll_cq");
	if (!n)
		die("no completion on CQ %d", i);
	return wc;
}

static void expect_wc(int i, enum ibv_wc_status st, enum ibv_wc_opcode op, uint64_t wr_id,
		      const char *what)
{
	struct ibv_wc wc = wait_wc(i);

	if (wc.status != st || (st == IBV_WC_SUCCESS && wc.opcode != op) || wc.wr_id != wr_id)
		die("%s: status %s opcode %d wr_id %llu, wanted %s opcode %d wr_id %llu", what,
		    ibv_wc_status_str(wc.status), wc.opcode, (unsigned long long)wc.wr_id,
		    ibv_wc_status_str(st), op, (unsigned long long)wr_id);
}

static void post(int i, struct ibv_send_wr *wr, const char *what)
{
	struct ibv_send_wr *bad;

	wr->send_flags |= IBV_SEND_SIGNALED;
	if (ibv_post_send(qp[i], wr, &bad))
		die("%s: ibv_post_send: %s", what, strerror(errno));
}

/*
 * From QP @i, @op (WRITE, READ or fetch-and-add of 8) of @len bytes at wbuf + @off through
 * @rkey: the completion status. A failed one leaves both QPs of the connection in error:
 * they are reset and connected again.
 */
static enum ibv_wc_status peer_op(int i, enum ibv_wr_opcode op, uint32_t rkey, uint64_t off,
				  uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)buf, len, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 77, .sg_list = &s, .num_sge = 1, .opcode = op };
	struct ibv_wc wc;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = (uintptr_t)wbuf + off;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 5;
	} else {
		wr.wr.rdma.remote_addr = (uintptr_t)wbuf + off;
		wr.wr.rdma.rkey = rkey;
	}
	post(i, &wr, "peer op");
	wc = wait_wc(i);
	if (wc.status != IBV_WC_SUCCESS)
		reconnect(i, i ^ 1);
	return wc.status;
}

static void fill(uint8_t *p, uint32_t n, unsigned int seed)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		p[k] = (uint8_t)(k * 7 + seed);
}

/* WRITE @len bytes at wbuf + @off through @rkey from QP @i, READ them back: must work. */
static void write_read_ok(int i, uint32_t rkey, uint64_t off, uint32_t len, const char *what)
{
	enum ibv_wc_status st;

	fill(buf, len, off);
	memset(wbuf + off, 0, len);
	st = peer_op(i, IBV_WR_RDMA_WRITE, rkey, off, len);
	if (st != IBV_WC_SUCCESS)
		die("%s: WRITE of %u at +%llu: %s", what, len, (unsigned long long)off,
		    ibv_wc_status_str(st));
	if (memcmp(buf, wbuf + off, len))
		die("%s: WRITE: data differs", what);
	memset(buf, 0, len);
	fill(wbuf + off, len, off + 1);
	st = peer_op(i, IBV_WR_RDMA_READ, rkey, off, len);
	if (st != IBV_WC_SUCCESS)
		die("%s: READ of %u at +%llu: %s", what, len, (unsigned long long)off,
		    ibv_wc_status_str(st));
	if (memcmp(buf, wbuf + off, len))
		die("%s: READ: data differs", what);
}

/* @op from QP @i through @rkey must be a remote access error, and must not write. */
static void refused(int i, enum ibv_wr_opcode op, uint32_t rkey, uint64_t off, uint32_t len,
		    const char *what)
{
	enum ibv_wc_status st;
	uint8_t before[64];

	memcpy(before, wbuf + off, sizeof(before));
	memset(buf, 0xee, len);
	st = peer_op(i, op, rkey, off, len);
	if (st != IBV_WC_REM_ACCESS_ERR)
		die("%s: %s, wanted a remote access error", what, ibv_wc_status_str(st));
	if (memcmp(before, wbuf + off, sizeof(before)))
		die("%s: the refused request changed the window's memory", what);
}

/* ibv_bind_mw (type 1) on QP @i: the completion status. */
static enum ibv_wc_status bind1(int i, struct ibv_mw *mw, struct ibv_mr *m, uint64_t off,
				uint64_t len, int access)
{
	struct ibv_mw_bind b = { .wr_id = 5, .send_flags = IBV_SEND_SIGNALED };
	uint32_t old = mw->rkey;
	struct ibv_wc wc;
	int err;

	b.bind_info.mr = m;
	b.bind_info.addr = (uintptr_t)m->addr + off;
	b.bind_info.length = len;
	b.bind_info.mw_access_flags = access;
	err = ibv_bind_mw(qp[i], mw, &b);
	if (err)
		die("ibv_bind_mw: %s", strerror(err));
	wc = wait_wc(i);
	if (wc.status == IBV_WC_SUCCESS && (wc.opcode != IBV_WC_BIND_MW || wc.wr_id != 5))
		die("bind completion: opcode %d wr_id %llu", wc.opcode, (unsigned long long)wc.wr_id);
	if (wc.status != IBV_WC_SUCCESS) {
		/* ibv_bind_mw set the new key at post: undoing it is the consumer's job */
		mw->rkey = old;
		reconnect(i, i ^ 1);
	}
	return wc.status;
}

/* IBV_WR_BIND_MW (type 2) on QP @i under @rkey: the completion status; mw->rkey follows. */
static enum ibv_wc_status bind2(int i, struct ibv_mw *mw, uint32_t rkey, struct ibv_mr *m,
				uint64_t off, uint64_t len, int access)
{
	struct ibv_send_wr wr = { .wr_id = 6, .opcode = IBV_WR_BIND_MW };
	struct ibv_wc wc;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = m;
	wr.bind_mw.bind_info.addr = (uintptr_t)m->addr + off;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	post(i, &wr, "bind type 2");
	wc = wait_wc(i);
	if (wc.status == IBV_WC_SUCCESS && (wc.opcode != IBV_WC_BIND_MW || wc.wr_id != 6))
		die("bind completion: opcode %d wr_id %llu", wc.opcode, (unsigned long long)wc.wr_id);
	if (wc.status != IBV_WC_SUCCESS) {
		reconnect(i, i ^ 1);
		return wc.status;
	}
	mw->rkey = rkey;	/* the consumer keeps a type 2 window's key */
	return wc.status;
}

static void local_inv(int i, uint32_t rkey, enum ibv_wc_status want, const char *what)
{
	struct ibv_send_wr wr = { .wr_id = 8, .opcode = IBV_WR_LOCAL_INV,
				  .invalidate_rkey = rkey };

	post(i, &wr, what);
	expect_wc(i, want, IBV_WC_LOCAL_INV, 8, what);
}

static struct ibv_mw *alloc_mw(struct ibv_pd *p, enum ibv_mw_type t)
{
	struct ibv_mw *mw = ibv_alloc_mw(p, t);

	if (!mw)
		die("ibv_alloc_mw(type %d): %s", t, strerror(errno));
	return mw;
}

#define RW	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define WOFF	4096	/* the windows cover wbuf + WOFF ... + WOFF + WLEN */
#define WLEN	(64 * 1024)

static int t_caps(void)
{
	struct ibv_device_attr a;
	const uint64_t want = IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B;

	if (ibv_query_device(ctx, &a))
		die("query_device");
	if ((a.device_cap_flags & want) != want || a.max_mw <= 0)
		die("device_cap_flags 0x%x (want 0x%llx set), max_mw %d", a.device_cap_flags,
		    (unsigned long long)want, a.max_mw);
	printf("max_mw %d\n", a.max_mw);
	return 0;
}

static int t_type1(void)
{
	struct ibv_mw *mw = alloc_mw(pd, IBV_MW_TYPE_1);
	uint32_t k0 = mw->rkey, k1, k2;
	enum ibv_wc_status st;
	uint64_t v;

	if (mw->type != IBV_MW_TYPE_1)
		die("type %d", mw->type);
	st = bind1(0, mw, wmr, WOFF, WLEN, RW | IBV_ACCESS_REMOTE_ATOMIC);
	if (st != IBV_WC_SUCCESS)
		die("bind: %s", ibv_wc_status_str(st));
	k1 = mw->rkey;
	if ((k1 >> 8) != (k0 >> 8) || (k1 & 0xff) != ((k0 + 1) & 0xff))
		die("key 0x%x after the bind of 0x%x: index or generation wrong", k1, k0);
	write_read_ok(1, k1, WOFF, WLEN, "type 1");
	write_read_ok(1, k1, WOFF + 5, 3000, "type 1, unaligned");
	*(uint64_t *)(wbuf + WOFF + 64) = 10;
	st = peer_op(1, IBV_WR_ATOMIC_FETCH_AND_ADD, k1, WOFF + 64, 8);
	memcpy(&v, buf, 8);
	if (st != IBV_WC_SUCCESS || v != 10 || *(uint64_t *)(wbuf + WOFF + 64) != 15)
		die("fetch-and-add through the window: %s, got %llu, memory %llu",
		    ibv_wc_status_str(st), (unsigned long long)v,
		    (unsigned long long)*(uint64_t *)(wbuf + WOFF + 64));
	refused(1, IBV_WR_RDMA_WRITE, k0, WOFF, 64, "the key from before the bind");
	write_read_ok(1, k1, WOFF + WLEN - 64, 64, "type 1, the last 64 bytes");
	/* a read-only window */
	st = bind1(0, mw, wmr, WOFF, WLEN, IBV_ACCESS_REMOTE_READ);
	if (st != IBV_WC_SUCCESS)
		die("bind read-only: %s", ibv_wc_status_str(st));
	k2 = mw->rkey;
	refused(1, IBV_WR_RDMA_WRITE, k2, WOFF, 64, "a WRITE through a read-only window");
	refused(1, IBV_WR_ATOMIC_FETCH_AND_ADD, k2, WOFF, 8, "an atomic through a read-only window");
	refused(1, IBV_WR_RDMA_READ, k1, WOFF, 64, "the key of the previous bind");
	fill(wbuf + WOFF, 128, 3);
	if (peer_op(1, IBV_WR_RDMA_READ, k2, WOFF, 128) != IBV_WC_SUCCESS ||
	    memcmp(buf, wbuf + WOFF, 128))
		die("a READ through the read-only window failed");
	/* a zero-length bind retires the key */
	st = bind1(0, mw, wmr, 0, 0, 0);
	if (st != IBV_WC_SUCCESS)
		die("bind of length 0: %s", ibv_wc_status_str(st));
	refused(1, IBV_WR_RDMA_READ, mw->rkey, WOFF, 64, "the key of a zero-length window");
	refused(1, IBV_WR_RDMA_READ, k2, WOFF, 64, "the key from before the zero-length bind");
	st = bind1(0, mw, wmr, WOFF, WLEN, RW);
	if (st != IBV_WC_SUCCESS)
		die("bind again: %s", ibv_wc_status_str(st));
	write_read_ok(1, mw->rkey, WOFF, 4096, "type 1 bound again");
	if (ibv_dealloc_mw(mw))
		die("dealloc of a bound type 1 window: %s", strerror(errno));
	return 0;
}

static int t_type2(void)
{
	struct ibv_mw *mw = alloc_mw(pd, IBV_MW_TYPE_2);
	uint32_t k0 = mw->rkey, k1, k2;
	enum ibv_wc_status st;
	uint64_t v;

	if (mw->type != IBV_MW_TYPE_2)
		die("type %d", mw->type);
	refused(1, IBV_WR_RDMA_WRITE, k0, WOFF, 64, "the key of a type 2 window never bound");
	k1 = ibv_inc_rkey(k0);
	st = bind2(0, mw, k1, wmr, WOFF, WLEN, RW | IBV_ACCESS_REMOTE_ATOMIC);
	if (st != IBV_WC_SUCCESS)
		die("bind: %s", ibv_wc_status_str(st));
	write_read_ok(1, k1, WOFF, WLEN, "type 2");
	*(uint64_t *)(wbuf + WOFF + 128) = 100;
	st = peer_op(1, IBV_WR_ATOMIC_FETCH_AND_ADD, k1, WOFF + 128, 8);
	memcpy(&v, buf, 8);
	if (st != IBV_WC_SUCCESS || v != 100 || *(uint64_t *)(wbuf + WOFF + 128) != 105)
		die("fetch-and-add through the window: %s", ibv_wc_status_str(st));
	refused(1, IBV_WR_RDMA_WRITE, k0, WOFF, 64, "the key the window was allocated with");
	local_inv(0, k1, IBV_WC_SUCCESS, "LOCAL_INV of the window");
	refused(1, IBV_WR_RDMA_WRITE, k1, WOFF, 64, "the key after LOCAL_INV");
	refused(1, IBV_WR_RDMA_READ, k1, WOFF, 64, "a READ after LOCAL_INV");
	k2 = ibv_inc_rkey(k1);
	st = bind2(0, mw, k2, wmr, WOFF + 8192, 8192, IBV_ACCESS_REMOTE_WRITE);
	if (st != IBV_WC_SUCCESS)
		die("bind after LOCAL_INV: %s", ibv_wc_status_str(st));
	refused(1, IBV_WR_RDMA_WRITE, k1, WOFF + 8192, 64, "the key of the previous bind");
	fill(buf, 8192, 9);
	if (peer_op(1, IBV_WR_RDMA_WRITE, k2, WOFF + 8192, 8192) != IBV_WC_SUCCESS ||
	    memcmp(buf, wbuf + WOFF + 8192, 8192))
		die("a WRITE through the window bound again failed");
	local_inv(0, k2, IBV_WC_SUCCESS, "the second LOCAL_INV");
	if (ibv_dealloc_mw(mw))
		die("dealloc: %s", strerror(errno));
	return 0;
}

/* The window's bounds, not the MR's, limit what its rkey reaches. */
static int t_bounds(void)
{
	struct ibv_mw *m1 = alloc_mw(pd, IBV_MW_TYPE_1), *m2 = alloc_mw(pd, IBV_MW_TYPE_2);
	uint32_t k2 = ibv_inc_rkey(m2->rkey);

	if (bind1(0, m1, wmr, WOFF, WLEN, RW | IBV_ACCESS_REMOTE_ATOMIC) != IBV_WC_SUCCESS ||
	    bind2(0, m2, k2, wmr, WOFF, WLEN, RW | IBV_ACCESS_REMOTE_ATOMIC) != IBV_WC_SUCCESS)
		die("binds failed");
	refused(1, IBV_WR_RDMA_WRITE, m1->rkey, WOFF + WLEN - 63, 64,
		"type 1: a WRITE one byte past the window");
	refused(1, IBV_WR_RDMA_READ, m1->rkey, WOFF - 1, 64,
		"type 1: a READ one byte before the window");
	refused(1, IBV_WR_RDMA_WRITE, m1->rkey, 0, 64,
		"type 1: a WRITE inside the MR but outside the window");
	refused(1, IBV_WR_ATOMIC_FETCH_AND_ADD, m1->rkey, WOFF + WLEN, 8,
		"type 1: an atomic just past the window");
	refused(1, IBV_WR_RDMA_WRITE, k2, WOFF + WLEN - 10, 64,
		"type 2: a WRITE past the window");
	refused(1, IBV_WR_RDMA_READ, k2, WOFF + WLEN + 4096, 64,
		"type 2: a READ inside the MR past the window");
	write_read_ok(1, m1->rkey, WOFF + WLEN - 64, 64, "type 1: the last 64 bytes");
	write_read_ok(1, k2, WOFF, 64, "type 2: the first 64 bytes");
	return 0;
}

static int t_type2_qp(void)
{
	struct ibv_mw *mw = alloc_mw(pd, IBV_MW_TYPE_2);
	uint32_t k = ibv_inc_rkey(mw->rkey);
	enum ibv_wc_status st;

	st = bind2(0, mw, k, wmr, WOFF, WLEN, RW);
	if (st != IBV_WC_SUCCESS)
		die("bind: %s", ibv_wc_status_str(st));
	refused(3, IBV_WR_RDMA_WRITE, k, WOFF, 64, "the rkey arriving on another QP");
	refused(3, IBV_WR_RDMA_READ, k, WOFF, 64, "a READ arriving on another QP");
	write_read_ok(1, k, WOFF, 4096, "through the QP it was bound on");
	return 0;
}

static int t_type2_rebind(void)
{
	struct ibv_mw *mw = alloc_mw(pd, IBV_MW_TYPE_2);
	uint32_t k = ibv_inc_rkey(mw->rkey);
	enum ibv_wc_status st;

	st = bind2(0, mw, k, wmr, WOFF, WLEN, RW);
	if (st != IBV_WC_SUCCESS)
		die("bind: %s", ibv_wc_status_str(st));
	st = bind2(0, mw, ibv_inc_rkey(k), wmr, WOFF, WLEN, RW);
	if (st != IBV_WC_MW_BIND_ERR)
		die("a second bind of a bound type 2 window: %s, wanted %s",
		    ibv_wc_status_str(st), ibv_wc_status_str(IBV_WC_MW_BIND_ERR));
	write_read_ok(1, k, WOFF, 4096, "the first bind's key after the refused one");
	return 0;
}

static int t_send_inv(void)
{
	struct ibv_mw *mw = alloc_mw(pd, IBV_MW_TYPE_2);
	uint32_t k = ibv_inc_rkey(mw->rkey);
	struct ibv_sge rs = { (uintptr_t)buf + 8192, 4096, mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 40, .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct ibv_sge ss = { (uintptr_t)buf, 100, mr->lkey };
	struct ibv_send_wr swr = { .wr_id = 41, .sg_list = &ss, .num_sge = 1,
				   .opcode = IBV_WR_SEND_WITH_INV };
	enum ibv_wc_status st;
	struct ibv_wc wc;

	st = bind2(0, mw, k, wmr, WOFF, WLEN, RW);
	if (st != IBV_WC_SUCCESS)
		die("bind: %s", ibv_wc_status_str(st));
	write_read_ok(1, k, WOFF, 4096, "before the SEND with Invalidate");
	if (ibv_post_recv(qp[0], &rwr, &rbad))
		die("post_recv: %s", strerror(errno));
	swr.invalidate_rkey = k;
	post(1, &swr, "SEND with Invalidate");
	expect_wc(1, IBV_WC_SUCCESS, IBV_WC_SEND, 41, "SEND with Invalidate (sender)");
	wc = wait_wc(0);
	/*
	 * rxe (stock 6.1 as well) writes the kernel's IB_WC_WITH_INVALIDATE (1 << 2) into the
	 * user CQ, where libibverbs' IBV_WC_WITH_INV is 1 << 3: either bit says it.
	 */
	if (wc.status || wc.opcode != IBV_WC_RECV || wc.byte_len != 100 ||
	    !(wc.wc_flags & (IBV_WC_WITH_INV | (1 << 2))) || wc.invalidated_rkey != k)
		die("receive: status %s opcode %d len %u flags 0x%x rkey 0x%x (want 0x%x)",
		    ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len, wc.wc_flags,
		    wc.invalidated_rkey, k);
	refused(1, IBV_WR_RDMA_WRITE, k, WOFF, 64, "the key after the SEND with Invalidate");
	return 0;
}

/* From QP @i, a SEND with Invalidate of @rkey to its peer (a receive posted there): status. */
static enum ibv_wc_status send_inv(int i, uint32_t rkey)
{
	struct ibv_sge rs = { (uintptr_t)buf + 8192, 4096, mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 50, .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct ibv_sge ss = { (uintptr_t)buf, 100, mr->lkey };
	struct ibv_send_wr swr = { .wr_id = 51, .sg_list = &ss, .num_sge = 1,
				   .opcode = IBV_WR_SEND_WITH_INV, .invalidate_rkey = rkey };
	struct ibv_wc wc;

	if (ibv_post_recv(qp[i ^ 1], &rwr, &rbad))
		die("post_recv: %s", strerror(errno));
	post(i, &swr, "SEND with Invalidate");
	wc = wait_wc(i);
	if (wc.status != IBV_WC_SUCCESS)
		reconnect(i, i ^ 1);
	return wc.status;
}

/*
 * A SEND with Invalidate may not free a type 1 window, nor a type 2 window through another
 * QP than the one it is bound to: the sender sees an error, the window keeps working.
 */
static int t_send_inv_refused(void)
{
	struct ibv_mw *m1 = alloc_mw(pd, IBV_MW_TYPE_1), *m2 = alloc_mw(pd, IBV_MW_TYPE_2);
	uint32_t k2 = ibv_inc_rkey(m2->rkey);
	enum ibv_wc_status st;

	if (bind1(0, m1, wmr, WOFF, WLEN, RW) != IBV_WC_SUCCESS ||
	    bind2(0, m2, k2, wmr, WOFF, WLEN, RW) != IBV_WC_SUCCESS)
		die("binds failed");
	st = send_inv(1, m1->rkey);
	if (st == IBV_WC_SUCCESS)
		die("a SEND with Invalidate of a type 1 window succeeded");
	printf("type 1 window: sender %s\n", ibv_wc_status_str(st));
	st = send_inv(3, k2);
	if (st == IBV_WC_SUCCESS)
		die("a SEND with Invalidate of a type 2 window through another QP succeeded");
	printf("type 2 window, another QP: sender %s\n", ibv_wc_status_str(st));
	write_read_ok(1, m1->rkey, WOFF, 4096, "the type 1 window afterwards");
	write_read_ok(1, k2, WOFF, 4096, "the type 2 window afterwards");
	return 0;
}

static int t_pd(void)
{
	struct ibv_mw *mw = alloc_mw(pd, IBV_MW_TYPE_1);
	enum ibv_wc_status st;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	/* QP 2 goes to the other PD: 2 <-> 3 again */
	ibv_destroy_qp(qp[2]);
	ibv_destroy_cq(cq[2]);
	make_qp(2, pd2);
	modify(3, &a, IBV_QP_STATE, "RESET");
	connect_qp(2, 3);
	connect_qp(3, 2);
	st = bind1(0, mw, wmr, WOFF, WLEN, RW);
	if (st != IBV_WC_SUCCESS)
		die("bind: %s", ibv_wc_status_str(st));
	refused(3, IBV_WR_RDMA_WRITE, mw->rkey, WOFF, 64, "the rkey arriving on a QP of another PD");
	write_read_ok(1, mw->rkey, WOFF, 4096, "through a QP of the window's PD");
	return 0;
}

static int t_bind_refused(void)
{
	struct ibv_mw *mw = alloc_mw(pd, IBV_MW_TYPE_1);
	struct ibv_mr *nobind = ibv_reg_mr(pd, wbuf, BUF, IBV_ACCESS_LOCAL_WRITE |
					   IBV_ACCESS_REMOTE_WRITE);
	enum ibv_wc_status st;

	if (!nobind)
		die("reg_mr: %s", strerror(errno));
	st = bind1(0, mw, nobind, WOFF, WLEN, RW);
	if (st != IBV_WC_MW_BIND_ERR)
		die("bind to an MR without MW_BIND: %s, wanted %s", ibv_wc_status_str(st),
		    ibv_wc_status_str(IBV_WC_MW_BIND_ERR));
	st = bind1(0, mw, wmr, BUF - 4096, 8192, RW);
	if (st != IBV_WC_MW_BIND_ERR)
		die("bind past the end of the MR: %s, wanted %s", ibv_wc_status_str(st),
		    ibv_wc_status_str(IBV_WC_MW_BIND_ERR));
	st = bind1(0, mw, wmr, WOFF, WLEN, RW);
	if (st != IBV_WC_SUCCESS)
		die("a good bind after the refused ones: %s", ibv_wc_status_str(st));
	write_read_ok(1, mw->rkey, WOFF, 4096, "after the refused binds");
	return 0;
}

static int t_bind_nowrite(void)
{
	uint8_t *ro = aligned_alloc(4096, 65536);
	struct ibv_mr *romr;
	struct ibv_mw *mw = alloc_mw(pd, IBV_MW_TYPE_1);
	enum ibv_wc_status st;

	if (!ro)
		die("alloc");
	romr = ibv_reg_mr(pd, ro, 65536, IBV_ACCESS_MW_BIND);
	if (!romr)
		die("reg_mr without local write: %s", strerror(errno));
	st = bind1(0, mw, romr, 0, 4096, IBV_ACCESS_REMOTE_WRITE);
	if (st != IBV_WC_MW_BIND_ERR)
		die("a writable window on an MR without local write: %s, wanted %s",
		    ibv_wc_status_str(st), ibv_wc_status_str(IBV_WC_MW_BIND_ERR));
	st = bind1(0, mw, romr, 0, 4096, IBV_ACCESS_REMOTE_READ);
	if (st != IBV_WC_SUCCESS)
		die("a read-only window on it: %s", ibv_wc_status_str(st));
	return 0;
}

static int t_dereg_bound(void)
{
	struct ibv_mw *m1 = alloc_mw(pd, IBV_MW_TYPE_1), *m2 = alloc_mw(pd, IBV_MW_TYPE_2);
	struct ibv_mr *a = ibv_reg_mr(pd, wbuf, BUF / 2, IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_MW_BIND);
	struct ibv_mr *b = ibv_reg_mr(pd, wbuf + BUF / 2, BUF / 2, IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_MW_BIND);
	uint32_t k2 = ibv_inc_rkey(m2->rkey);
	int err;

	if (!a || !b)
		die("reg_mr: %s", strerror(errno));
	if (bind1(0, m1, a, WOFF, WLEN, RW) != IBV_WC_SUCCESS ||
	    bind2(0, m2, k2, b, WOFF, WLEN, RW) != IBV_WC_SUCCESS)
		die("binds failed");
	err = ibv_dereg_mr(a);
	if (err != EINVAL)
		die("dereg of an MR with a bound type 1 window: %s, wanted EINVAL",
		    err ? strerror(err) : "success");
	err = ibv_dereg_mr(b);
	if (err != EINVAL)
		die("dereg of an MR with a bound type 2 window: %s, wanted EINVAL",
		    err ? strerror(err) : "success");
	write_read_ok(1, m1->rkey, WOFF, 4096, "the window over the MR dereg refused");
	if (ibv_dealloc_mw(m1))
		die("dealloc: %s", strerror(errno));
	err = ibv_dereg_mr(a);
	if (err)
		die("dereg after the window was deallocated: %s", strerror(err));
	local_inv(0, k2, IBV_WC_SUCCESS, "LOCAL_INV of the type 2 window");
	err = ibv_dereg_mr(b);
	if (err)
		die("dereg after the window was invalidated: %s", strerror(err));
	return 0;
}

static int t_exit_bound(void)
{
	struct ibv_mw *m1 = alloc_mw(pd, IBV_MW_TYPE_1), *m2 = alloc_mw(pd, IBV_MW_TYPE_2);

	if (bind1(0, m1, wmr, WOFF, WLEN, RW) != IBV_WC_SUCCESS ||
	    bind2(0, m2, ibv_inc_rkey(m2->rkey), wmr, WOFF, WLEN, RW) != IBV_WC_SUCCESS)
		die("binds failed");
	write_read_ok(1, m2->rkey, WOFF, 4096, "before exit");
	return 0;	/* everything left for the kernel to clean up */
}

static int t_drain(void)
{
	const size_t len = (4 << 20) + (64 << 10);
	uint8_t *src = aligned_alloc(4096, len), *dst = aligned_alloc(4096, len);
	struct ibv_mr *smr, *dmr;
	struct ibv_mw *mw = alloc_mw(pd, IBV_MW_TYPE_2);
	struct ibv_sge s;
	struct ibv_send_wr rd = { .wr_id = 1, .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr inv = { .wr_id = 2, .opcode = IBV_WR_LOCAL_INV,
				   .send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int i, n, spins;

	if (!src || !dst)
		die("aligned_alloc");
	fill(src, len, 9);
	memset(dst, 0, len);
	smr = ibv_reg_mr(pd, src, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	dmr = ibv_reg_mr(pd, dst, len, IBV_ACCESS_LOCAL_WRITE);
	if (!smr || !dmr)
		die("reg_mr of 2 x %zu bytes: %s (RLIMIT_MEMLOCK?)", len, strerror(errno));
	if (bind2(0, mw, ibv_inc_rkey(mw->rkey), smr, 0, len, IBV_ACCESS_REMOTE_READ) !=
	    IBV_WC_SUCCESS)
		die("bind failed");
	s = (struct ibv_sge){ (uintptr_t)dst, (uint32_t)len, dmr->lkey };
	rd.wr.rdma.remote_addr = (uintptr_t)src;
	rd.wr.rdma.rkey = mw->rkey;
	inv.invalidate_rkey = mw->rkey;
	rd.next = &inv;
	if (ibv_post_send(qp[1], &rd, &bad))
		die("post READ + LOCAL_INV: %s", strerror(errno));
	for (i = 1; i <= 2; i++) {
		spins = 0;
		while (!(n = ibv_poll_cq(cq[1], 1, &wc)) && ++spins < 200 * 1000)
			usleep(100);
		if (n <= 0)
			die("%s: no completion within 20 s", i == 1 ? "the READ" : "the LOCAL_INV");
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)i)
			die("wr_id %llu: %s", (unsigned long long)wc.wr_id,
			    ibv_wc_status_str(wc.status));
	}
	if (memcmp(src, dst, len))
		die("the READ's data differs");
	if (ibv_dealloc_mw(mw) || ibv_dereg_mr(smr) || ibv_dereg_mr(dmr))
		die("dealloc/dereg: %s", strerror(errno));
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} tests[] = {
	{ "caps", t_caps },
	{ "type1", t_type1 },
	{ "type2", t_type2 },
	{ "bounds", t_bounds },
	{ "type2-qp", t_type2_qp },
	{ "type2-rebind", t_type2_rebind },
	{ "send-inv", t_send_inv },
	{ "send-inv-refused", t_send_inv_refused },
	{ "pd", t_pd },
	{ "bind-refused", t_bind_refused },
	{ "bind-nowrite", t_bind_nowrite },
	{ "dereg-bound", t_dereg_bound },
	{ "exit-bound", t_exit_bound },
	{ "drain", t_drain },
};

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc != 4)
		die("usage: rxe_mw DEVICE GID_INDEX TEST");
	gidx = atoi(argv[2]);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (strcmp(argv[3], tests[i].name))
			continue;
		open_dev(argv[1]);
		setup();
		if (tests[i].fn())
			return 1;
		printf("ok %s\n", tests[i].name);
		return 0;
	}
	die("unknown test %s", argv[3]);
}
