// SPDX-License-Identifier: GPL-2.0
/* rxe_verify.c - checks the data and the error completions of an rxe device over loopback. */

/*
 * Usage: rxe_verify DEVICE GID_INDEX TEST
 * Two RC QPs on DEVICE are connected to each other through GID_INDEX (the device loops the
 * packets back), then TEST runs; exit 0 when it behaved, 1 with a message when not.
 * The QPs use timeout 14 (67 ms) and retry_cnt 3 unless the test sets its own. The timing
 * tests (retry-t14, retry-t18, retry-t0, rnr-timed) print one line with the time measured.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#define BUF	(1 << 20)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq[2];
static struct ibv_qp *qp[2];
static struct ibv_mr *mr[2];
static uint8_t *buf[2];
static int gidx;
/* QP attributes connect_qp() sets; the timing tests change them and reconnect. */
static int q_timeout = 14, q_retry_cnt = 3, q_min_rnr_timer = 1;

#define die(...) do { fprintf(stderr, "rxe_verify: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

/* Bring @q to RTS aimed at QP @dqpn of this device, with the PSNs it expects and sends. */
static void connect_to(struct ibv_qp *q, uint32_t dqpn, uint32_t rq_psn, uint32_t sq_psn,
		       int rnr_retry)
{
	struct ibv_qp_attr a = {};
	union ibv_gid gid;

	if (ibv_query_gid(ctx, 1, gidx, &gid))
		die("query_gid");
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = q_min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		die("modify RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = q_timeout;
	a.retry_cnt = q_retry_cnt;
	a.rnr_retry = rnr_retry;
	a.sq_psn = sq_psn;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify RTS");
}

static void connect_qp(int i, int rnr_retry)
{
	connect_to(qp[i], qp[!i]->qp_num, 100 + !i, 100 + i, rnr_retry);
}

static void setup(const char *name, int rnr_retry)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	int i;

	for (i = 0; l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name))
			break;
	if (!l || !l[i] || !(ctx = ibv_open_device(l[i])))
		die("no device %s", name);
	pd = ibv_alloc_pd(ctx);
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = {};

		cq[i] = ibv_create_cq(ctx, 256, NULL, NULL, 0);
		buf[i] = aligned_alloc(4096, BUF);
		memset(buf[i], 0, BUF);
		mr[i] = ibv_reg_mr(pd, buf[i], BUF, IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
		ia.send_cq = ia.recv_cq = cq[i];
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = ia.cap.max_recv_wr = 64;
		ia.cap.max_send_sge = ia.cap.max_recv_sge = 4;
		ia.cap.max_inline_data = 256;
		qp[i] = ibv_create_qp(pd, &ia);
		if (!pd || !cq[i] || !mr[i] || !qp[i])
			die("cannot create verbs objects");
	}
	connect_qp(0, rnr_retry);
	connect_qp(1, rnr_retry);
}

/* The provider's doorbell for @q, as the rxe provider rings it: POST_SEND with no work requests. */
static void doorbell(struct ibv_qp *q)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send ps;
	} cmd = {};
	struct ib_uverbs_post_send_resp resp;

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.ps.response = (uintptr_t)&resp;
	cmd.ps.qp_handle = q->handle;
	cmd.ps.wqe_size = sizeof(struct ibv_send_wr);
	if (write(ctx->cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd))
		die("doorbell");
}

static struct ibv_wc wait_wc(int i)
{
	struct ibv_wc wc;
	int n, spins = 0;

	while (!(n = ibv_poll_cq(cq[i], 1, &wc))) {
		if (++spins > 50 * 1000)
			die("no completion on side %d", i);
		usleep(10);
	}
	if (n < 0)
		die("poll_cq");
	return wc;
}

static void expect(int i, enum ibv_wc_status st, enum ibv_wc_opcode op)
{
	struct ibv_wc wc = wait_wc(i);

	if (wc.status != st)
		die("side %d: status %s, wanted %s", i, ibv_wc_status_str(wc.status),
		    ibv_wc_status_str(st));
	if (st == IBV_WC_SUCCESS && wc.opcode != op)
		die("side %d: opcode %d, wanted %d", i, wc.opcode, op);
}

static void post(int i, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	wr->send_flags |= IBV_SEND_SIGNALED;
	if (ibv_post_send(qp[i], wr, &bad))
		die("post_send");
}

static void post_recv(int i, uint64_t off, uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)buf[i] + off, len, mr[i]->lkey };
	struct ibv_recv_wr wr = { .wr_id = off, .sg_list = &s, .num_sge = 1 }, *bad;

	if (ibv_post_recv(qp[i], &wr, &bad))
		die("post_recv");
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t k;

	for (k = 0; k < n; k++)
		p[k] = (uint8_t)(k * 7 + seed);
}

/* RDMA WRITE sizes across packet boundaries, then READ them back. */
static int t_write_read(void)
{
	static const uint32_t sizes[] = { 1, 3, 1023, 1024, 1025, 4096, 65536 + 13, 512 * 1024 };
	unsigned int k;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint32_t n = sizes[k];
		struct ibv_sge s = { (uintptr_t)buf[0] + 5, n, mr[0]->lkey };
		struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE };

		fill(buf[0] + 5, n, k);
		memset(buf[1], 0, BUF);
		wr.wr.rdma.remote_addr = (uintptr_t)buf[1] + 11;
		wr.wr.rdma.rkey = mr[1]->rkey;
		post(0, &wr);
		expect(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
		if (memcmp(buf[0] + 5, buf[1] + 11, n) || buf[1][10] || buf[1][11 + n])
			die("write of %u bytes: data differs", n);

		memset(buf[0] + 5, 0, n);
		wr.opcode = IBV_WR_RDMA_READ;
		post(0, &wr);
		expect(0, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
		if (memcmp(buf[0] + 5, buf[1] + 11, n))
			die("read of %u bytes: data differs", n);
	}
	return 0;
}

/* SEND with immediate data, gathered from 3 SGEs, scattered into 2. */
static int t_send_sge_imm(void)
{
	struct ibv_sge s[3] = { { (uintptr_t)buf[0], 1000, mr[0]->lkey },
				{ (uintptr_t)buf[0] + 5000, 3000, mr[0]->lkey },
				{ (uintptr_t)buf[0] + 9000, 7, mr[0]->lkey } };
	struct ibv_sge r[2] = { { (uintptr_t)buf[1], 2500, mr[1]->lkey },
				{ (uintptr_t)buf[1] + 10000, 8000, mr[1]->lkey } };
	struct ibv_recv_wr rw = { .sg_list = r, .num_sge = 2 }, *bad;
	struct ibv_send_wr wr = { .sg_list = s, .num_sge = 3, .opcode = IBV_WR_SEND_WITH_IMM,
				  .imm_data = htonl(0x12345678) };
	struct ibv_wc wc;

	fill(buf[0], BUF / 2, 3);
	if (ibv_post_recv(qp[1], &rw, &bad))
		die("post_recv");
	post(0, &wr);
	expect(0, IBV_WC_SUCCESS, IBV_WC_SEND);
	wc = wait_wc(1);
	if (wc.status || wc.opcode != IBV_WC_RECV || wc.byte_len != 4007 ||
	    !(wc.wc_flags & IBV_WC_WITH_IMM) || wc.imm_data != htonl(0x12345678))
		die("recv completion: status %d opcode %d len %u flags %x imm %x", wc.status,
		    wc.opcode, wc.byte_len, wc.wc_flags, wc.imm_data);
	if (memcmp(buf[1], buf[0], 1000) || memcmp(buf[1] + 1000, buf[0] + 5000, 1500) ||
	    memcmp(buf[1] + 10000, buf[0] + 6500, 1500) || memcmp(buf[1] + 11500, buf[0] + 9000, 7))
		die("scattered data differs");
	return 0;
}

static int t_inline(void)
{
	struct ibv_sge s = { (uintptr_t)buf[0], 200, 0 };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_INLINE };

	fill(buf[0], 200, 9);
	post_recv(1, 0, 4096);
	post(0, &wr);
	expect(0, IBV_WC_SUCCESS, IBV_WC_SEND);
	expect(1, IBV_WC_SUCCESS, IBV_WC_RECV);
	if (memcmp(buf[0], buf[1], 200))
		die("inline data differs");
	return 0;
}

static int t_write_imm(void)
{
	struct ibv_sge s = { (uintptr_t)buf[0], 3000, mr[0]->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .imm_data = htonl(7) };
	struct ibv_wc wc;

	fill(buf[0], 3000, 1);
	wr.wr.rdma.remote_addr = (uintptr_t)buf[1] + 8192;
	wr.wr.rdma.rkey = mr[1]->rkey;
	post_recv(1, 0, 0);
	post(0, &wr);
	expect(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	wc = wait_wc(1);
	if (wc.status || wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || wc.imm_data != htonl(7))
		die("write-with-imm completion: status %d opcode %d", wc.status, wc.opcode);
	if (memcmp(buf[0], buf[1] + 8192, 3000))
		die("written data differs");
	return 0;
}

static int t_atomics(void)
{
	uint64_t *target = (uint64_t *)(buf[1] + 64), *res = (uint64_t *)buf[0];
	struct ibv_sge s = { (uintptr_t)res, 8, mr[0]->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1 };

	*target = 1000;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = mr[1]->rkey;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.compare_add = 5;
	post(0, &wr);
	expect(0, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD);
	if (*res != 1000 || *target != 1005)
		die("fetch_add: got %llu, target %llu", (unsigned long long)*res,
		    (unsigned long long)*target);
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 1;
	wr.wr.atomic.swap = 77;
	post(0, &wr);
	expect(0, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP);
	if (*res != 1005 || *target != 1005)
		die("cmp_swap (mismatch) changed the target");
	wr.wr.atomic.compare_add = 1005;
	post(0, &wr);
	expect(0, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP);
	if (*res != 1005 || *target != 77)
		die("cmp_swap (match): got %llu, target %llu", (unsigned long long)*res,
		    (unsigned long long)*target);
	return 0;
}

/*
 * An atomic as the last request, then idle for 4x the retransmit budget ((retry_cnt + 1)
 * timeouts of 67 ms): nothing is outstanding, so no timer may fire and the QP stays usable (a
 * WRITE after the pause succeeds). The counters of driver_counters.bats see retry_timeouts.
 */
static int t_atomic_idle(void)
{
	uint64_t *target = (uint64_t *)(buf[1] + 64);
	struct ibv_sge s = { (uintptr_t)buf[0], 8, mr[0]->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD };

	*target = 1;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = mr[1]->rkey;
	wr.wr.atomic.compare_add = 2;
	post(0, &wr);
	expect(0, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD);
	usleep(4 * (q_retry_cnt + 1) * 67 * 1000);
	s.length = 100;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)buf[1] + 4096;
	wr.wr.rdma.rkey = mr[1]->rkey;
	post(0, &wr);
	expect(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	if (*target != 3)
		die("fetch-and-add: target %llu", (unsigned long long)*target);
	return 0;
}

static int t_bad_rkey(void)
{
	struct ibv_sge s = { (uintptr_t)buf[0], 100, mr[0]->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE };

	wr.wr.rdma.remote_addr = (uintptr_t)buf[1];
	wr.wr.rdma.rkey = mr[1]->rkey ^ 0x55;
	post(0, &wr);
	expect(0, IBV_WC_REM_ACCESS_ERR, 0);
	return 0;
}

static int t_out_of_range(void)
{
	struct ibv_sge s = { (uintptr_t)buf[0], 100, mr[0]->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_READ };

	wr.wr.rdma.remote_addr = (uintptr_t)buf[1] + BUF - 50;
	wr.wr.rdma.rkey = mr[1]->rkey;
	post(0, &wr);
	expect(0, IBV_WC_REM_ACCESS_ERR, 0);
	return 0;
}

static int t_bad_lkey(void)
{
	struct ibv_sge s = { (uintptr_t)buf[0], 100, mr[0]->lkey + 1 };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE };

	wr.wr.rdma.remote_addr = (uintptr_t)buf[1];
	wr.wr.rdma.rkey = mr[1]->rkey;
	post(0, &wr);
	expect(0, IBV_WC_LOC_PROT_ERR, 0);
	return 0;
}

static int t_recv_too_small(void)
{
	struct ibv_sge s = { (uintptr_t)buf[0], 3000, mr[0]->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND };

	post_recv(1, 0, 100);
	post(0, &wr);
	expect(1, IBV_WC_LOC_LEN_ERR, 0);
	expect(0, IBV_WC_REM_INV_REQ_ERR, 0);
	return 0;
}

static int t_rnr_retry(void)
{
	struct ibv_sge s = { (uintptr_t)buf[0], 5000, mr[0]->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND };

	fill(buf[0], 5000, 4);
	post(0, &wr);
	usleep(300 * 1000);	/* the receiver answers RNR NAKs meanwhile */
	post_recv(1, 0, 8192);
	expect(0, IBV_WC_SUCCESS, IBV_WC_SEND);
	expect(1, IBV_WC_SUCCESS, IBV_WC_RECV);
	if (memcmp(buf[0], buf[1], 5000))
		die("data after RNR retry differs");
	return 0;
}

static int t_rnr_exceeded(void)
{
	struct ibv_sge s = { (uintptr_t)buf[0], 10, mr[0]->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND };

	post(0, &wr);
	expect(0, IBV_WC_RNR_RETRY_EXC_ERR, 0);
	return 0;
}

static int t_flush(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	post_recv(1, 0, 100);
	post_recv(1, 100, 100);
	if (ibv_modify_qp(qp[1], &a, IBV_QP_STATE))
		die("modify ERR");
	expect(1, IBV_WC_WR_FLUSH_ERR, 0);
	expect(1, IBV_WC_WR_FLUSH_ERR, 0);
	return 0;
}

/*
 * Hostile send queues: fill every slot of both QPs' send rings (the uverbs mappings whose
 * element size is that of a send WQE) with random bytes and set the producer index to a
 * random value, then ring the doorbell, 20 times. The kernel must turn all of it into error
 * completions and a QP in the error state; the caller checks afterwards that it survived.
 */
static int t_garbage_sq(void)
{
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r");
	struct ibv_wc wc[16];
	unsigned int seed = (unsigned int)time(NULL);
	int round, k, rings = 0;

	if (!maps)
		die("no /proc/self/maps");
	for (round = 0; round < 20; round++) {
		rewind(maps);
		while (fgets(line, sizeof(line), maps)) {
			unsigned long a, b;
			uint32_t *hdr;
			uint8_t *p;

			if (!strstr(line, "uverbs") || sscanf(line, "%lx-%lx", &a, &b) != 2)
				continue;
			hdr = (uint32_t *)a;
			if (hdr[0] != 9)	/* log2_elem_size of a 512-byte send WQE slot */
				continue;
			for (p = (uint8_t *)a + 384; p < (uint8_t *)b; p++)
				*p = (uint8_t)rand_r(&seed);
			__atomic_store_n(&hdr[32], (uint32_t)rand_r(&seed) & hdr[1], __ATOMIC_RELEASE);
			rings += !round;
		}
		if (rings != 2)
			die("found %d send rings to scribble on, wanted 2", rings);
		for (k = 0; k < 2; k++) {
			doorbell(qp[k]);
			ibv_poll_cq(cq[k], 16, wc);
		}
		usleep(20000);
	}
	fclose(maps);
	return 0;
}

/*
 * SEND with invalidate naming a user MR (ibv_reg_mr): only fast-register MRs (and memory
 * windows) can be invalidated, so the receiver refuses it with a remote access error and never
 * completes a receive that claims an invalidation (IBV_WC_WITH_INV) that did not happen.
 */
static int t_send_inv(void)
{
	struct ibv_sge s = { (uintptr_t)buf[0], 64, mr[0]->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_INV };
	struct ibv_wc wc;
	int spins;

	post_recv(1, 0, 4096);
	wr.invalidate_rkey = mr[1]->rkey;
	post(0, &wr);
	wc = wait_wc(0);
	if (wc.status != IBV_WC_REM_ACCESS_ERR)
		die("SEND_WITH_INV of a user MR's rkey completed with %s, wanted %s",
		    ibv_wc_status_str(wc.status), ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
	for (spins = 0; spins < 20000; spins++) {
		int n = ibv_poll_cq(cq[1], 1, &wc);

		if (n < 0)
			die("poll_cq");
		if (n && wc.status == IBV_WC_SUCCESS)
			die("the receive completed%s", wc.wc_flags & IBV_WC_WITH_INV ?
			    " with IBV_WC_WITH_INV" : "");
		usleep(10);
	}
	return 0;
}

/*
 * IB_WR_REG_MR written straight into both user send rings (the provider never posts it): its
 * WQE names a kernel ib_mr, so the driver must refuse it from a ring user space writes,
 * completing it with IBV_WC_LOC_QP_OP_ERR and never looking at the pointer.
 */
static int t_user_reg_mr(void)
{
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r");
	int k, rings = 0;

	if (!maps)
		die("no /proc/self/maps");
	while (fgets(line, sizeof(line), maps)) {
		unsigned long a, b;
		struct rxe_send_wqe *w;
		uint32_t *hdr, prod;

		if (!strstr(line, "uverbs") || sscanf(line, "%lx-%lx", &a, &b) != 2)
			continue;
		hdr = (uint32_t *)a;
		if (hdr[0] != 9)	/* log2_elem_size of a 512-byte send WQE slot */
			continue;
		prod = __atomic_load_n(&hdr[32], __ATOMIC_ACQUIRE);
		w = (struct rxe_send_wqe *)((uint8_t *)a + 384 + ((size_t)(prod & hdr[1]) << 9));
		memset(w, 0, sizeof(*w));
		w->wr.wr_id = 0x5e9;
		w->wr.opcode = 0x20;			/* IB_WR_REG_MR */
		w->wr.send_flags = IBV_SEND_SIGNALED;
		/* where the kernel's reg.mr / reg.key sit: a kernel-looking pointer, a real key */
		w->wr.wr.rdma.remote_addr = 0xffff888000100000ull;
		w->wr.wr.rdma.rkey = mr[0]->rkey;
		__atomic_store_n(&hdr[32], (prod + 1) & hdr[1], __ATOMIC_RELEASE);
		rings++;
	}
	fclose(maps);
	if (rings != 2)
		die("found %d send rings, wanted 2", rings);
	for (k = 0; k < 2; k++) {
		struct ibv_wc wc;

		doorbell(qp[k]);
		wc = wait_wc(k);
		if (wc.wr_id != 0x5e9 || wc.status != IBV_WC_LOC_QP_OP_ERR)
			die("QP %d: REG_MR from the user ring completed with wr_id 0x%llx status %s, wanted %s",
			    k, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
			    ibv_wc_status_str(IBV_WC_LOC_QP_OP_ERR));
	}
	return 0;
}

/* Async events of qp[0] within ms milliseconds: count of @type. */
static int count_events(enum ibv_event_type type, int ms)
{
	struct ibv_async_event ev;
	int n = 0, flags = fcntl(ctx->async_fd, F_GETFL);

	fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	for (; ms > 0; ms -= 10) {
		while (!ibv_get_async_event(ctx, &ev)) {
			if (ev.event_type == type)
				n++;
			ibv_ack_async_event(&ev);
		}
		usleep(10000);
	}
	fcntl(ctx->async_fd, F_SETFL, flags);
	return n;
}

/*
 * IBV_EVENT_QP_FATAL is for faults: an application's own move to the error state raises none;
 * a remote access error (found by the responder qp[1], reported to the requester qp[0]) does.
 */
static int t_qp_events(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_sge s = { (uintptr_t)buf[0], 8, mr[0]->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE };
	int n;

	if (ibv_modify_qp(qp[0], &a, IBV_QP_STATE))
		die("modify ERR");
	n = count_events(IBV_EVENT_QP_FATAL, 500);
	if (n)
		die("%d QP_FATAL events after the application's own move to ERR", n);
	a.qp_state = IBV_QPS_RESET;
	if (ibv_modify_qp(qp[0], &a, IBV_QP_STATE))
		die("modify RESET");
	connect_qp(0, 7);
	wr.wr.rdma.remote_addr = (uintptr_t)buf[1];
	wr.wr.rdma.rkey = mr[1]->rkey ^ 0x100;
	post(0, &wr);
	expect(0, IBV_WC_REM_ACCESS_ERR, 0);
	n = count_events(IBV_EVENT_QP_FATAL, 500);
	if (n < 1)
		die("no QP_FATAL event for a remote access fault");
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Take QP @i back to RESET and connect it again with the q_* attributes. */
static void reconnect(int i, int rnr_retry)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	if (ibv_modify_qp(qp[i], &a, IBV_QP_STATE))
		die("modify RESET");
	connect_qp(i, rnr_retry);
}

/*
 * Post an 8-byte SEND on qp[0] and wait up to @limit seconds for its completion. Returns the
 * seconds it took, or -1 when none came; the completion's status goes to *st.
 */
static double timed_send(double limit, enum ibv_wc_status *st)
{
	struct ibv_sge s = { (uintptr_t)buf[0], 8, mr[0]->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND };
	double t0 = now();
	struct ibv_wc wc;
	int n;

	post(0, &wr);
	while (!(n = ibv_poll_cq(cq[0], 1, &wc))) {
		if (now() - t0 > limit)
			return -1;
		usleep(200);
	}
	if (n < 0)
		die("poll_cq");
	*st = wc.status;
	return now() - t0;
}

/*
 * Retry exceeded: the peer QP goes back to RESET and drops everything, so a SEND is sent
 * retry_cnt + 1 times, one local ACK timeout (4.096 us * 2^timeout) apart, and then fails
 * with IBV_WC_RETRY_EXC_ERR: after (retry_cnt + 1) timeouts, plus timer slack.
 */
static int retry_exceeded(int timeout, int retry_cnt)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	double want = (retry_cnt + 1) * 4.096e-6 * (double)(1u << timeout);
	enum ibv_wc_status st;
	double t;

	q_timeout = timeout;
	q_retry_cnt = retry_cnt;
	reconnect(0, 7);
	if (ibv_modify_qp(qp[1], &a, IBV_QP_STATE))
		die("modify RESET");
	t = timed_send(want * 3 + 5, &st);
	if (t < 0)
		die("no completion within %.1f s (timeout %d, retry_cnt %d: expected %.3f s)",
		    want * 3 + 5, timeout, retry_cnt, want);
	printf("timeout %d retry_cnt %d: %s after %.3f s (expected %.3f s)\n", timeout, retry_cnt,
	       ibv_wc_status_str(st), t, want);
	if (st != IBV_WC_RETRY_EXC_ERR)
		die("status %s, wanted %s", ibv_wc_status_str(st),
		    ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
	if (t < want * 0.9 || t > want * 1.3 + 0.15)
		die("retry exceeded after %.3f s, expected %.3f s (%.3f..%.3f)", t, want, want * 0.9,
		    want * 1.3 + 0.15);
	return 0;
}

static int t_retry_t14(void)
{
	return retry_exceeded(14, 2);
}

static int t_retry_t18(void)
{
	return retry_exceeded(18, 2);
}

/* timeout 0 is "infinite" (IBA 9.7.6.1.3): a SEND to a silent peer never times out. */
static int t_retry_t0(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	enum ibv_wc_status st;
	double t;

	q_timeout = 0;
	q_retry_cnt = 0;
	reconnect(0, 7);
	if (ibv_modify_qp(qp[1], &a, IBV_QP_STATE))
		die("modify RESET");
	t = timed_send(4, &st);
	if (t >= 0)
		die("timeout 0 (infinite): the SEND completed with %s after %.3f s",
		    ibv_wc_status_str(st), t);
	printf("timeout 0 retry_cnt 0: no completion in 4 s\n");
	return 0;
}

/*
 * RNR retry exceeded: no receive is posted, the responder NAKs with its min_rnr_timer 26
 * (81.92 ms); rnr_retry 2 waits twice, the third RNR NAK fails the SEND with
 * IBV_WC_RNR_RETRY_EXC_ERR.
 */
static int t_rnr_timed(void)
{
	double want = 2 * 0.08192;
	enum ibv_wc_status st;
	double t;

	q_min_rnr_timer = 26;
	reconnect(0, 2);
	reconnect(1, 2);
	t = timed_send(10, &st);
	if (t < 0)
		die("no completion within 10 s");
	printf("rnr_retry 2 min_rnr_timer 26: %s after %.3f s (expected %.3f s)\n",
	       ibv_wc_status_str(st), t, want);
	if (st != IBV_WC_RNR_RETRY_EXC_ERR)
		die("status %s, wanted %s", ibv_wc_status_str(st),
		    ibv_wc_status_str(IBV_WC_RNR_RETRY_EXC_ERR));
	if (t < want * 0.9 || t > want * 1.3 + 0.15)
		die("RNR retry exceeded after %.3f s, expected %.3f s (%.3f..%.3f)", t, want,
		    want * 0.9, want * 1.3 + 0.15);
	return 0;
}

/*
 * Loopback direct placement and its fallbacks (the bundled driver; stock rxe sends packets for
 * all of it, and the data must come out the same). A batch whose first WQE is a WRITE over the
 * placement limit (4 MiB: it goes as packets, window by window), followed by a SEND, a WRITE, a
 * READ and a fetch-and-add that find it unacknowledged (packets, or placed once the peer has
 * taken all of it); then the same four again once it is done. Every byte and every completion,
 * in order, is checked.
 */
#define MIX_BUF	(12 << 20)
static int t_fallback_mixed(void)
{
	uint8_t *src = aligned_alloc(4096, MIX_BUF), *dst = aligned_alloc(4096, MIX_BUF);
	struct ibv_mr *ms, *md;
	const uint32_t big = (5 << 20) + 3;
	int round;

	if (!src || !dst)
		die("no memory");
	memset(dst, 0, MIX_BUF);
	fill(src, MIX_BUF, 11);
	ms = ibv_reg_mr(pd, src, MIX_BUF, IBV_ACCESS_LOCAL_WRITE);
	md = ibv_reg_mr(pd, dst, MIX_BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!ms || !md)
		die("reg_mr");
	for (round = 0; round < 2; round++) {
		uint64_t o = (uint64_t)round << 19;	/* each round its own places */
		struct ibv_sge sb = { (uintptr_t)src, big, ms->lkey },
			       ss = { (uintptr_t)src + (6 << 20) + o, 3000, ms->lkey },
			       sw = { (uintptr_t)src + (7 << 20) + o + 1, 777, ms->lkey },
			       sr = { (uintptr_t)src + (8 << 20) + o, 100 * 1024 + 5, ms->lkey },
			       sa = { (uintptr_t)src + (9 << 20) + o, 8, ms->lkey },
			       rr = { (uintptr_t)dst + (6 << 20) + o, 4096, md->lkey };
		struct ibv_send_wr w[5] = {}, *bad;
		struct ibv_recv_wr rw = { .wr_id = 6, .sg_list = &rr, .num_sge = 1 }, *rbad;
		uint64_t *target = (uint64_t *)(dst + (9 << 20) + o), *old = (uint64_t *)(src + (9 << 20) + o);
		static const enum ibv_wc_opcode ops[5] = { IBV_WC_RDMA_WRITE, IBV_WC_SEND,
			IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_FETCH_ADD };
		int k, first = round ? 1 : 0;
		struct ibv_wc wc;

		fill(dst + (8 << 20) + o, 100 * 1024 + 5, 29 + round);	/* what the READ fetches */
		*target = 40 + round;
		if (ibv_post_recv(qp[1], &rw, &rbad))
			die("post_recv");
		w[0].sg_list = &sb;
		w[0].opcode = IBV_WR_RDMA_WRITE;
		w[0].wr.rdma.remote_addr = (uintptr_t)dst;
		w[0].wr.rdma.rkey = md->rkey;
		w[1].sg_list = &ss;
		w[1].opcode = IBV_WR_SEND;
		w[2].sg_list = &sw;
		w[2].opcode = IBV_WR_RDMA_WRITE;
		w[2].wr.rdma.remote_addr = (uintptr_t)dst + (7 << 20) + o + 2;
		w[2].wr.rdma.rkey = md->rkey;
		w[3].sg_list = &sr;
		w[3].opcode = IBV_WR_RDMA_READ;
		w[3].wr.rdma.remote_addr = (uintptr_t)dst + (8 << 20) + o;
		w[3].wr.rdma.rkey = md->rkey;
		w[4].sg_list = &sa;
		w[4].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		w[4].wr.atomic.remote_addr = (uintptr_t)target;
		w[4].wr.atomic.rkey = md->rkey;
		w[4].wr.atomic.compare_add = 1000;
		for (k = first; k < 5; k++) {
			w[k].wr_id = k;
			w[k].num_sge = 1;
			w[k].send_flags = IBV_SEND_SIGNALED;
			w[k].next = k < 4 ? &w[k + 1] : NULL;
		}
		if (ibv_post_send(qp[0], &w[first], &bad))
			die("post_send");
		for (k = first; k < 5; k++) {
			wc = wait_wc(0);
			if (wc.status || wc.wr_id != (uint64_t)k || wc.opcode != ops[k])
				die("round %d: completion %d: wr_id %llu status %s opcode %d", round, k,
				    (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
				    wc.opcode);
		}
		wc = wait_wc(1);
		if (wc.status || wc.opcode != IBV_WC_RECV || wc.byte_len != 3000 || wc.wr_id != 6)
			die("round %d: receive: status %s opcode %d len %u", round,
			    ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len);
		if (!round && memcmp(src, dst, big))
			die("the %u-byte write differs", big);
		if (memcmp(src + (6 << 20) + o, dst + (6 << 20) + o, 3000) ||
		    memcmp(src + (7 << 20) + o + 1, dst + (7 << 20) + o + 2, 777) ||
		    dst[(7 << 20) + o + 1] || dst[(7 << 20) + o + 2 + 777] ||
		    memcmp(src + (8 << 20) + o, dst + (8 << 20) + o, 100 * 1024 + 5))
			die("round %d: send, write or read data differs", round);
		if (*old != (uint64_t)(40 + round) || *target != (uint64_t)(1040 + round))
			die("round %d: fetch-and-add: old %llu, target %llu", round,
			    (unsigned long long)*old, (unsigned long long)*target);
	}
	return 0;
}

/*
 * The peer QP moved to the error state in the middle of a transfer: a 64 KiB SEND is under way
 * (no receive is posted, so the peer answers RNR NAKs and the sender keeps retrying it) when
 * qp[1] goes to ERR; from then on the peer drops every packet, so the SEND ends with retry
 * exceeded (3 retries of 67 ms), the WRITE posted behind it is flushed, and nothing hangs. A
 * WRITE before all this is intact.
 */
static int t_peer_error(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_sge s1 = { (uintptr_t)buf[0], 1000, mr[0]->lkey },
		       s2 = { (uintptr_t)buf[0] + 4096, 65536, mr[0]->lkey },
		       s3 = { (uintptr_t)buf[0] + 81920, 100, mr[0]->lkey };
	struct ibv_send_wr w1 = { .wr_id = 1, .sg_list = &s1, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE },
			   w2 = { .wr_id = 2, .sg_list = &s2, .num_sge = 1, .opcode = IBV_WR_SEND },
			   w3 = { .wr_id = 3, .sg_list = &s3, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE };
	struct ibv_wc wc;

	fill(buf[0], BUF, 5);
	w1.wr.rdma.remote_addr = (uintptr_t)buf[1] + 200000;
	w3.wr.rdma.remote_addr = (uintptr_t)buf[1] + 300000;
	w1.wr.rdma.rkey = w3.wr.rdma.rkey = mr[1]->rkey;
	post(0, &w1);
	expect(0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	if (memcmp(buf[0], buf[1] + 200000, 1000))
		die("the write before the move differs");
	post(0, &w2);
	post(0, &w3);
	usleep(200 * 1000);	/* RNR NAKs and retries meanwhile */
	if (ibv_poll_cq(cq[0], 1, &wc))
		die("a completion before the move: wr_id %llu status %s",
		    (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	if (ibv_modify_qp(qp[1], &a, IBV_QP_STATE))
		die("modify ERR");
	wc = wait_wc(0);
	if (wc.wr_id != 2 || wc.status != IBV_WC_RETRY_EXC_ERR)
		die("the SEND: wr_id %llu status %s (retry exceeded wanted)",
		    (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	wc = wait_wc(0);
	if (wc.wr_id != 3 || wc.status != IBV_WC_WR_FLUSH_ERR)
		die("the write behind it: wr_id %llu status %s", (unsigned long long)wc.wr_id,
		    ibv_wc_status_str(wc.status));
	if (buf[1][300000])
		die("the flushed write landed");
	return 0;
}

/*
 * An intruder: a QP of this host in a PD of its own, aimed at qp[1] (connected to qp[0]), sends
 * an RDMA WRITE with the PSN qp[1] expects and qp[1]'s real rkey. qp[1]'s path does not lead
 * back to it, so loopback direct placement must not take it (the bats test checks
 * loopback_placed): it goes as packets, whose fate is the packet path's (RC packets name no
 * source QP, so the responder may take it, as stock rxe does; its ACK goes to qp[0], so the
 * intruder never completes with success). Prints the outcome, the same with and without
 * placement.
 */
static int t_intruder(void)
{
	struct ibv_pd *ipd = ibv_alloc_pd(ctx);
	struct ibv_cq *icq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	uint8_t *ibuf = aligned_alloc(4096, 65536);
	struct ibv_mr *imr = ipd && ibuf ? ibv_reg_mr(ipd, ibuf, 65536, IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_qp_init_attr ia = { .send_cq = icq, .recv_cq = icq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *iq = ipd && icq ? ibv_create_qp(ipd, &ia) : NULL;
	struct ibv_sge sg = { (uintptr_t)ibuf, 8192, imr ? imr->lkey : 0 };
	struct ibv_send_wr wr = { .wr_id = 9, .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	struct ibv_wc wc;
	int n, spins = 0, landed = 0, k;

	if (!imr || !iq)
		die("cannot create the intruder's verbs objects");
	fill(ibuf, 65536, 99);
	connect_to(iq, qp[1]->qp_num, 500, 100, 0);	/* 100: the PSN qp[1] expects from qp[0] */
	wr.wr.rdma.remote_addr = (uintptr_t)buf[1] + 4096;
	wr.wr.rdma.rkey = mr[1]->rkey;
	if (ibv_post_send(iq, &wr, &bad))
		die("intruder post_send");
	while (!(n = ibv_poll_cq(icq, 1, &wc))) {
		if (++spins > 500 * 1000)
			die("the intruder's WRITE never completed");
		usleep(10);
	}
	if (n < 0)
		die("poll_cq");
	if (wc.status == IBV_WC_SUCCESS)
		die("the intruder's WRITE completed with success: an ACK reached a QP qp[1] does not point at");
	for (k = 0; k < 8192; k++)
		landed += buf[1][4096 + k] == ibuf[k];
	printf("intruder: %s; bytes of the victim's buffer that now hold the intruder's data: %s\n",
	       ibv_wc_status_str(wc.status), landed == 8192 ? "all" : landed > 100 ? "some" : "none");
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
	int rnr_retry;
} tests[] = {
	{ "write-read", t_write_read, 7 },
	{ "send-sge-imm", t_send_sge_imm, 7 },
	{ "inline", t_inline, 7 },
	{ "write-imm", t_write_imm, 7 },
	{ "atomics", t_atomics, 7 },
	{ "atomic-idle", t_atomic_idle, 7 },
	{ "bad-rkey", t_bad_rkey, 7 },
	{ "out-of-range", t_out_of_range, 7 },
	{ "bad-lkey", t_bad_lkey, 7 },
	{ "recv-too-small", t_recv_too_small, 7 },
	{ "rnr-retry", t_rnr_retry, 7 },
	{ "rnr-exceeded", t_rnr_exceeded, 1 },
	{ "flush", t_flush, 7 },
	{ "garbage-sq", t_garbage_sq, 7 },
	{ "send-inv", t_send_inv, 7 },
	{ "user-reg-mr", t_user_reg_mr, 7 },
	{ "qp-events", t_qp_events, 7 },
	{ "retry-t14", t_retry_t14, 7 },
	{ "retry-t18", t_retry_t18, 7 },
	{ "retry-t0", t_retry_t0, 7 },
	{ "rnr-timed", t_rnr_timed, 2 },
	{ "fallback-mixed", t_fallback_mixed, 7 },
	{ "peer-error", t_peer_error, 7 },
	{ "intruder", t_intruder, 7 },
};

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc != 4)
		die("usage: rxe_verify DEVICE GID_INDEX TEST");
	gidx = atoi(argv[2]);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (strcmp(argv[3], tests[i].name))
			continue;
		setup(argv[1], tests[i].rnr_retry);
		if (tests[i].fn())
			return 1;
		printf("ok %s\n", tests[i].name);
		return 0;
	}
	die("unknown test %s", argv[3]);
}
