// SPDX-License-Identifier: GPL-2.0
/* selftest.c - loopback verbs self-test: every RC operation between two QPs of one device. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "log.h"
#include "selftest.h"
#include "util.h"

#define BUF_SIZE	8192
#define ATOMIC_OFF	6144		/* 8-byte aligned word used by the atomics */
#define IMM_VALUE	0x52584531u	/* "RXE1" */

struct lb {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_mr *mr[2];
	uint8_t *buf[2];		/* 0: the requester's (A), 1: the responder's (B) */
	union ibv_gid gid;
	int timeout_ms;
};

static uint64_t now_usec(void)
{
	return (uint64_t)mono_ns() / 1000u;
}

static void set_detail(struct st_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_detail(struct st_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
}

/* One completion from cq, polling until the deadline: 0, or -ETIMEDOUT / -EIO. */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, uint64_t deadline)
{
	unsigned int spins = 0;

	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return -EIO;
		if (n == 1)
			return 0;
		if (now_usec() > deadline)
			return -ETIMEDOUT;
		if (++spins > 200)
			usleep(20);	/* let the kernel's rxe tasks run on a busy CPU */
	}
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 31u + seed * 7u + (i >> 8));
}

/* The first differing byte, or -1. */
static long diff_at(const uint8_t *a, const uint8_t *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

static int to_init(struct ibv_qp *qp, unsigned int port)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = (uint8_t)port,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			     IBV_QP_ACCESS_FLAGS);
}

static int to_rtr_rts(struct ibv_qp *qp, uint32_t dest_qpn, unsigned int port, int gid_index,
		      const union ibv_gid *gid, enum ibv_mtu mtu)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu,
		.dest_qp_num = dest_qpn,
		.rq_psn = 0,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.grh = { .dgid = *gid, .sgid_index = (uint8_t)gid_index, .hop_limit = 64 },
			.port_num = (uint8_t)port,
		},
	};
	int err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER);

	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void lb_close(struct lb *lb)
{
	for (int i = 0; i < 2; i++) {
		if (lb->qp[i])
			ibv_destroy_qp(lb->qp[i]);
		if (lb->cq[i])
			ibv_destroy_cq(lb->cq[i]);
		if (lb->mr[i])
			ibv_dereg_mr(lb->mr[i]);
		free(lb->buf[i]);
	}
	if (lb->pd)
		ibv_dealloc_pd(lb->pd);
	if (lb->ctx)
		ibv_close_device(lb->ctx);
}

static int lb_open(struct lb *lb, const char *dev_name, unsigned int port, int gid_index,
		   struct selftest *st)
{
	struct ibv_device **list;
	struct ibv_port_attr pa;
	int n = 0;

	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name)) {
			lb->ctx = ibv_open_device(list[i]);
			if (!lb->ctx)
				snprintf(st->error, sizeof(st->error), "libibverbs cannot open %s: %s",
					 dev_name, strerror(errno));
			break;
		}
	if (list)
		ibv_free_device_list(list);
	if (!lb->ctx) {
		if (!st->error[0])
			snprintf(st->error, sizeof(st->error), "libibverbs does not see %s (is "
				 "ib_uverbs loaded and rdma-core's provider installed?)", dev_name);
		return -ENODEV;
	}
	if (ibv_query_port(lb->ctx, (uint8_t)port, &pa) ||
	    ibv_query_gid(lb->ctx, (uint8_t)port, gid_index, &lb->gid)) {
		snprintf(st->error, sizeof(st->error), "cannot query port %u of %s: %s", port,
			 dev_name, strerror(errno));
		return -EIO;
	}
	if (pa.state != IBV_PORT_ACTIVE) {
		snprintf(st->error, sizeof(st->error), "port %u of %s is %s, not ACTIVE", port,
			 dev_name, ibv_port_state_str(pa.state));
		return -ENETDOWN;
	}
	st->path_mtu = 128u << pa.active_mtu;
	lb->pd = ibv_alloc_pd(lb->ctx);
	if (!lb->pd)
		goto fail;
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr qa = {
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		if (posix_memalign((void **)&lb->buf[i], 4096, BUF_SIZE)) {
			lb->buf[i] = NULL;
			goto fail;
		}
		memset(lb->buf[i], 0, BUF_SIZE);
		lb->mr[i] = ibv_reg_mr(lb->pd, lb->buf[i], BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				       IBV_ACCESS_REMOTE_ATOMIC);
		lb->cq[i] = ibv_create_cq(lb->ctx, 32, NULL, NULL, 0);
		if (!lb->mr[i] || !lb->cq[i])
			goto fail;
		qa.send_cq = qa.recv_cq = lb->cq[i];
		lb->qp[i] = ibv_create_qp(lb->pd, &qa);
		if (!lb->qp[i] || to_init(lb->qp[i], port))
			goto fail;
	}
	for (int i = 0; i < 2; i++)
		if (to_rtr_rts(lb->qp[i], lb->qp[!i]->qp_num, port, gid_index, &lb->gid,
			       pa.active_mtu))
			goto fail;
	return 0;
fail:
	snprintf(st->error, sizeof(st->error), "setting up two connected RC QPs on %s failed: %s",
		 dev_name, strerror(errno ? errno : EIO));
	return -EIO;
}

static int post_recv(struct lb *lb, size_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)lb->buf[1], .length = (uint32_t)len,
			       .lkey = lb->mr[1]->lkey };
	struct ibv_recv_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(lb->qp[1], &wr, &bad);
}

/* Post one work request from A; sge over A's buffer at `off`, `len` bytes. */
static int post_send(struct lb *lb, struct ibv_send_wr *wr, size_t off, size_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(lb->buf[0] + off), .length = (uint32_t)len,
			       .lkey = lb->mr[0]->lkey };
	struct ibv_send_wr *bad;

	wr->wr_id = 1;
	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags = IBV_SEND_SIGNALED;
	return ibv_post_send(lb->qp[0], wr, &bad);
}

/*
 * Wait for A's send completion and, when want_recv, B's receive completion.
 * false with r->detail set when something is wrong; *fatal when the QPs
 * cannot be trusted for more operations.
 */
static bool complete(struct lb *lb, struct st_result *r, uint64_t t0, bool want_recv,
		     struct ibv_wc *rwc, bool *fatal)
{
	uint64_t deadline = t0 + (uint64_t)lb->timeout_ms * 1000u;
	struct ibv_wc wc;
	int err = wait_wc(lb->cq[0], &wc, deadline);

	if (err == 0 && wc.status != IBV_WC_SUCCESS) {
		set_detail(r, "the work request completed with \"%s\"", ibv_wc_status_str(wc.status));
		*fatal = true;
		return false;
	}
	if (err == 0 && want_recv) {
		err = wait_wc(lb->cq[1], rwc, deadline);
		if (err == 0 && rwc->status != IBV_WC_SUCCESS) {
			set_detail(r, "the receive completed with \"%s\"",
				   ibv_wc_status_str(rwc->status));
			*fatal = true;
			return false;
		}
	}
	r->usec = now_usec() - t0;
	if (err == -ETIMEDOUT) {
		set_detail(r, "no completion within %d ms: packets are not getting through (port, "
			   "GID, firewall; see `rxectl doctor`)", lb->timeout_ms);
		*fatal = true;
		return false;
	}
	if (err) {
		set_detail(r, "polling the completion queue failed");
		*fatal = true;
		return false;
	}
	return true;
}

static bool verify(struct st_result *r, const uint8_t *got, const uint8_t *want, size_t len,
		   const char *where)
{
	long at = diff_at(got, want, len);

	if (at < 0)
		return true;
	set_detail(r, "%s differs from what was sent at byte %ld of %zu", where, at, len);
	return false;
}

static bool op_send(struct lb *lb, struct st_result *r, bool imm, bool *fatal)
{
	struct ibv_send_wr wr = { .opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND };
	const size_t len = SELFTEST_MSG_LEN;
	struct ibv_wc rwc;
	uint64_t t0;

	fill(lb->buf[0], len, imm ? 2 : 1);
	memset(lb->buf[1], 0, len);
	if (imm)
		wr.imm_data = htonl(IMM_VALUE);
	if (post_recv(lb, len)) {
		set_detail(r, "ibv_post_recv failed: %s", strerror(errno));
		*fatal = true;
		return false;
	}
	t0 = now_usec();
	if (post_send(lb, &wr, 0, len)) {
		set_detail(r, "ibv_post_send failed: %s", strerror(errno));
		*fatal = true;
		return false;
	}
	if (!complete(lb, r, t0, true, &rwc, fatal))
		return false;
	if (rwc.opcode != IBV_WC_RECV || rwc.byte_len != len) {
		set_detail(r, "the receive completion has opcode %d and %u bytes, not a %zu-byte "
			   "receive", rwc.opcode, rwc.byte_len, len);
		return false;
	}
	if (imm && (!(rwc.wc_flags & IBV_WC_WITH_IMM) || ntohl(rwc.imm_data) != IMM_VALUE)) {
		set_detail(r, "the receive completion does not carry the immediate value 0x%08x",
			   IMM_VALUE);
		return false;
	}
	return verify(r, lb->buf[1], lb->buf[0], len, "the received message");
}

static bool op_write(struct lb *lb, struct st_result *r, bool imm, bool *fatal)
{
	struct ibv_send_wr wr = { .opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE };
	const size_t len = SELFTEST_MSG_LEN;
	struct ibv_wc rwc;
	uint64_t t0;

	fill(lb->buf[0], len, imm ? 4 : 3);
	memset(lb->buf[1], 0, len);
	wr.wr.rdma.remote_addr = (uintptr_t)lb->buf[1];
	wr.wr.rdma.rkey = lb->mr[1]->rkey;
	if (imm) {
		wr.imm_data = htonl(IMM_VALUE);
		if (post_recv(lb, 0)) {
			set_detail(r, "ibv_post_recv failed: %s", strerror(errno));
			*fatal = true;
			return false;
		}
	}
	t0 = now_usec();
	if (post_send(lb, &wr, 0, len)) {
		set_detail(r, "ibv_post_send failed: %s", strerror(errno));
		*fatal = true;
		return false;
	}
	if (!complete(lb, r, t0, imm, &rwc, fatal))
		return false;
	if (imm && (rwc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || !(rwc.wc_flags & IBV_WC_WITH_IMM) ||
		    ntohl(rwc.imm_data) != IMM_VALUE)) {
		set_detail(r, "the receive completion is not a write with immediate 0x%08x",
			   IMM_VALUE);
		return false;
	}
	return verify(r, lb->buf[1], lb->buf[0], len, "the written memory");
}

static bool op_read(struct lb *lb, struct st_result *r, bool *fatal)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_READ };
	const size_t len = SELFTEST_MSG_LEN;
	uint64_t t0;

	fill(lb->buf[1], len, 5);
	memset(lb->buf[0], 0, len);
	wr.wr.rdma.remote_addr = (uintptr_t)lb->buf[1];
	wr.wr.rdma.rkey = lb->mr[1]->rkey;
	t0 = now_usec();
	if (post_send(lb, &wr, 0, len)) {
		set_detail(r, "ibv_post_send failed: %s", strerror(errno));
		*fatal = true;
		return false;
	}
	if (!complete(lb, r, t0, false, NULL, fatal))
		return false;
	return verify(r, lb->buf[0], lb->buf[1], len, "the memory read");
}

static bool op_atomic(struct lb *lb, struct st_result *r, bool cas, bool *fatal)
{
	struct ibv_send_wr wr = { .opcode = cas ? IBV_WR_ATOMIC_CMP_AND_SWP :
					   IBV_WR_ATOMIC_FETCH_AND_ADD };
	uint64_t *remote = (uint64_t *)(lb->buf[1] + ATOMIC_OFF);
	uint64_t *local = (uint64_t *)(lb->buf[0] + ATOMIC_OFF);
	const uint64_t orig = 0x0123456789abcdefull, add = 0x1111, swap = 0xfedcba9876543210ull;
	uint64_t want_remote = cas ? swap : orig + add, t0;

	*remote = orig;
	*local = 0;
	wr.wr.atomic.remote_addr = (uintptr_t)remote;
	wr.wr.atomic.rkey = lb->mr[1]->rkey;
	wr.wr.atomic.compare_add = cas ? orig : add;
	wr.wr.atomic.swap = cas ? swap : 0;
	t0 = now_usec();
	if (post_send(lb, &wr, ATOMIC_OFF, sizeof(uint64_t))) {
		set_detail(r, "ibv_post_send failed: %s", strerror(errno));
		*fatal = true;
		return false;
	}
	if (!complete(lb, r, t0, false, NULL, fatal))
		return false;
	if (*local != orig) {
		set_detail(r, "the returned original value is 0x%016llx, not 0x%016llx",
			   (unsigned long long)*local, (unsigned long long)orig);
		return false;
	}
	if (*remote != want_remote) {
		set_detail(r, "the remote word is 0x%016llx afterwards, not 0x%016llx",
			   (unsigned long long)*remote, (unsigned long long)want_remote);
		return false;
	}
	return true;
}

/* The error path: a write with an rkey no MR has must fail with a remote access error. */
static bool op_bad_rkey(struct lb *lb, struct st_result *r, bool *fatal)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE };
	const size_t len = 256;
	uint64_t t0, deadline;
	uint32_t bad = lb->mr[1]->rkey ^ 0x00a5a500u;
	uint8_t before[256];
	struct ibv_wc wc;
	int err;

	while (bad == lb->mr[0]->rkey || bad == lb->mr[1]->rkey)
		bad += 0x100;
	fill(lb->buf[0], len, 6);
	fill(lb->buf[1], len, 7);
	memcpy(before, lb->buf[1], len);
	wr.wr.rdma.remote_addr = (uintptr_t)lb->buf[1];
	wr.wr.rdma.rkey = bad;
	t0 = now_usec();
	if (post_send(lb, &wr, 0, len)) {
		set_detail(r, "ibv_post_send failed: %s", strerror(errno));
		*fatal = true;
		return false;
	}
	deadline = t0 + (uint64_t)lb->timeout_ms * 1000u;
	err = wait_wc(lb->cq[0], &wc, deadline);
	r->usec = now_usec() - t0;
	if (err) {
		set_detail(r, "no completion within %d ms for a write with a wrong rkey; it should "
			   "fail at once with a remote access error", lb->timeout_ms);
		return false;
	}
	if (wc.status == IBV_WC_SUCCESS) {
		set_detail(r, "a write with a wrong rkey succeeded: the device does not check rkeys");
		return false;
	}
	if (wc.status != IBV_WC_REM_ACCESS_ERR) {
		set_detail(r, "a write with a wrong rkey failed with \"%s\", not \"%s\"",
			   ibv_wc_status_str(wc.status), ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
		return false;
	}
	if (diff_at(lb->buf[1], before, len) >= 0) {
		set_detail(r, "the write with a wrong rkey failed but changed the target memory");
		return false;
	}
	set_detail(r, "failed with \"%s\", as expected", ibv_wc_status_str(wc.status));
	return true;
}

static const char *const op_names[SELFTEST_MAX_OPS] = {
	"send", "send_imm", "write", "write_imm", "read", "fetch_add", "cmp_swap",
	"write_bad_rkey",
};

int selftest_run(const char *dev_name, unsigned int port, int gid_index, int timeout_ms,
		 struct selftest *st)
{
	struct lb lb = { .timeout_ms = timeout_ms };
	struct ibv_device_attr da;
	bool fatal = false, atomics = true;
	int err;

	memset(st, 0, sizeof(*st));
	err = lb_open(&lb, dev_name, port, gid_index, st);
	if (err) {
		lb_close(&lb);
		return err;
	}
	if (ibv_query_device(lb.ctx, &da) == 0 && da.atomic_cap == IBV_ATOMIC_NONE)
		atomics = false;
	for (size_t i = 0; i < SELFTEST_MAX_OPS; i++) {
		struct st_result *r = &st->r[st->n++];
		bool ok = false;

		r->op = op_names[i];
		if (fatal) {
			r->status = ST_SKIP;
			set_detail(r, "not run: an earlier operation left the QPs in the error state");
			continue;
		}
		if (!atomics && (i == 5 || i == 6)) {
			r->status = ST_SKIP;
			set_detail(r, "not run: %s does not support atomic operations", dev_name);
			continue;
		}
		switch (i) {
		case 0: ok = op_send(&lb, r, false, &fatal); break;
		case 1: ok = op_send(&lb, r, true, &fatal); break;
		case 2: ok = op_write(&lb, r, false, &fatal); break;
		case 3: ok = op_write(&lb, r, true, &fatal); break;
		case 4: ok = op_read(&lb, r, &fatal); break;
		case 5: ok = op_atomic(&lb, r, false, &fatal); break;
		case 6: ok = op_atomic(&lb, r, true, &fatal); break;
		default: ok = op_bad_rkey(&lb, r, &fatal); break;
		}
		r->status = ok ? ST_PASS : ST_FAIL;
		log_debug("selftest: %s %s %llu usec %s", r->op, ok ? "pass" : "fail",
			  (unsigned long long)r->usec, r->detail);
	}
	lb_close(&lb);
	return 0;
}

int selftest_probe_open(const char *dev_name, char *why, size_t len)
{
	struct ibv_device **list;
	struct ibv_context *c = NULL;
	int n = 0, err = 0;

	snprintf(why, len, "libibverbs does not see it (is ib_uverbs loaded, is rdma-core's "
		 "provider installed?)");
	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name)) {
			c = ibv_open_device(list[i]);
			err = errno;
			if (!c)
				snprintf(why, len, "%s", strerror(err ? err : ENODEV));
			break;
		}
	if (list)
		ibv_free_device_list(list);
	if (!c)
		return -1;
	ibv_close_device(c);
	why[0] = '\0';
	return 0;
}
