// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_ktest_verbs.c - rxe_ktest's cases for the verbs a kernel ULP uses beyond RC (issue 11):
 *   post-refused      a kernel UC QP refuses RDMA READ and atomics at post time (EINVAL, the
 *                     WR reported back as bad), a UD QP refuses RDMA WRITE; a UC SEND is taken
 *                     (both QPs in ERR through INIT, a state whose send queue takes work)
 *   last-wqe-kernel   a kernel RC QP on an SRQ moved to ERR raises IB_EVENT_QP_LAST_WQE_REACHED
 *                     once, to its event handler in process context (what a kernel target that
 *                     drains an SRQ QP waits for); a QP without an SRQ raises none
 *   post-state        as stock 6.1: a send posted on a QP in RESET or INIT is EINVAL (the WR
 *                     named as bad), a receive in RESET too while INIT takes it; a QP moved
 *                     back to RESET from RTS (after a SEND went through) refuses both again
 */
#include <linux/delay.h>
#include <linux/slab.h>
#include "rxe_ktest.h"

/* Post one WR of @opcode on @qp; the error, and whether bad_wr named it. */
static int kt_post_op(struct ib_qp *qp, enum ib_wr_opcode opcode, bool *named)
{
	struct ib_rdma_wr rw = { .wr = { .wr_id = 9, .opcode = opcode }, .remote_addr = 0x1000,
				 .rkey = 0x1234 };
	struct ib_atomic_wr aw = { .wr = { .wr_id = 9, .opcode = opcode }, .remote_addr = 0x1000,
				   .rkey = 0x1234 };
	const struct ib_send_wr *wr, *bad = NULL;
	int err;

	wr = (opcode == IB_WR_ATOMIC_CMP_AND_SWP || opcode == IB_WR_ATOMIC_FETCH_AND_ADD) ?
	     &aw.wr : &rw.wr;
	err = ib_post_send(qp, wr, &bad);
	*named = bad == wr;
	return err;
}

static void kt_post_refused(void)
{
	struct ib_qp_attr init = { .qp_state = IB_QPS_INIT, .port_num = 1, .qkey = 0x11111111 };
	struct kt_qp uc = {}, ud = {};
	bool n1 = false, n2 = false, n3 = false, n4 = false;
	int e1 = 0, e2 = 0, e3 = 0, e4 = 0, err;

	err = kt_qp_create_pd(&uc, IB_QPT_UC, pd) ?: kt_qp_create_pd(&ud, IB_QPT_UD, pd);
	if (err) {
		report(false, "post-refused", "creating a UC and a UD QP: %d", err);
		goto out;
	}
	/*
	 * In ERR, where the send queue takes (and flushes) work: the refusals are the opcode's.
	 * RESET -> ERR is not a legal transition (the core refuses it): through INIT.
	 */
	err = ib_modify_qp(uc.qp, &init, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			   IB_QP_ACCESS_FLAGS) ?:
	      ib_modify_qp(ud.qp, &init, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY) ?:
	      ib_modify_qp(uc.qp, &(struct ib_qp_attr){ .qp_state = IB_QPS_ERR }, IB_QP_STATE) ?:
	      ib_modify_qp(ud.qp, &(struct ib_qp_attr){ .qp_state = IB_QPS_ERR }, IB_QP_STATE);
	if (err) {
		report(false, "post-refused", "moving the UC and UD QPs to INIT then ERR: %d", err);
		goto out;
	}
	e1 = kt_post_op(uc.qp, IB_WR_RDMA_READ, &n1);
	e2 = kt_post_op(uc.qp, IB_WR_ATOMIC_FETCH_AND_ADD, &n2);
	e3 = kt_post_op(ud.qp, IB_WR_RDMA_WRITE, &n3);
	e4 = kt_post_op(uc.qp, IB_WR_SEND, &n4);
	report(e1 == -EINVAL && n1 && e2 == -EINVAL && n2 && e3 == -EINVAL && n3 && !e4,
	       "post-refused", "UC READ %d%s, UC fetch-and-add %d%s, UD WRITE %d%s (want -22, "
	       "named), UC SEND %d (want 0)", e1, n1 ? " named" : "", e2, n2 ? " named" : "",
	       e3, n3 ? " named" : "", e4);
out:
	kt_qp_destroy(&uc);
	kt_qp_destroy(&ud);
}

/* One SEND and one receive on @qp: their errors, and whether bad_wr named the WR. */
static void kt_post_both(struct kt_qp *e, int *se, bool *sn, int *re, bool *rn)
{
	struct ib_sge sge = { .addr = e->dma, .length = 64, .lkey = pd->local_dma_lkey };
	struct ib_send_wr swr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1,
				  .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED };
	struct ib_recv_wr rwr = { .wr_id = 6, .sg_list = &sge, .num_sge = 1 };
	const struct ib_send_wr *sbad = NULL;
	const struct ib_recv_wr *rbad = NULL;

	*se = ib_post_send(e->qp, &swr, &sbad);
	*sn = sbad == &swr;
	*re = ib_post_recv(e->qp, &rwr, &rbad);
	*rn = rbad == &rwr;
}

static void kt_post_state(void)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_INIT, .port_num = 1 };
	int se0 = 0, re0 = 0, se1 = 0, re1 = 0, se2 = 0, re2 = 0, err;
	bool sn0 = false, rn0 = false, sn1 = false, rn1 = false, sn2 = false, rn2 = false;
	struct kt_qp x = {}, y = {};
	struct ib_sge sge;
	struct ib_send_wr swr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				  .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED };
	bool sent;

	err = kt_qp_create_pd(&x, IB_QPT_RC, pd) ?: kt_qp_create_pd(&y, IB_QPT_RC, pd);
	if (err) {
		report(false, "post-state", "creating two RC QPs: %d", err);
		goto out;
	}
	kt_post_both(&x, &se0, &sn0, &re0, &rn0);	/* RESET */
	err = ib_modify_qp(x.qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			   IB_QP_ACCESS_FLAGS);
	if (err) {
		report(false, "post-state", "modify to INIT: %d", err);
		goto out;
	}
	kt_post_both(&x, &se1, &sn1, &re1, &rn1);	/* INIT: the receive is taken */
	err = kt_rc_connect(&x, y.qp->qp_num, gid) ?: kt_rc_connect(&y, x.qp->qp_num, gid);
	sge = (struct ib_sge){ .addr = y.dma, .length = 64, .lkey = pd->local_dma_lkey };
	err = err ?: ib_post_send(y.qp, &swr, NULL);
	sent = !err && kt_wait_comps(&x, 1) && kt_wait_comps(&y, 1) &&
	       x.last_status == IB_WC_SUCCESS && y.last_status == IB_WC_SUCCESS;
	a.qp_state = IB_QPS_RESET;
	err = err ?: ib_modify_qp(x.qp, &a, IB_QP_STATE);
	if (!err)
		kt_post_both(&x, &se2, &sn2, &re2, &rn2);	/* back in RESET */
	report(se0 == -EINVAL && sn0 && re0 == -EINVAL && rn0 && se1 == -EINVAL && sn1 && !re1 &&
	       sent && !err && se2 == -EINVAL && sn2 && re2 == -EINVAL && rn2, "post-state",
	       "RESET: send %d%s, recv %d%s; INIT: send %d%s, recv %d (want 0); SEND in RTS %s; "
	       "back in RESET (modify %d): send %d%s, recv %d%s (want -22, named)",
	       se0, sn0 ? " named" : "", re0, rn0 ? " named" : "", se1, sn1 ? " named" : "", re1,
	       sent ? "completed" : "FAILED", err, se2, sn2 ? " named" : "", re2,
	       rn2 ? " named" : "");
out:
	kt_qp_destroy(&x);
	kt_qp_destroy(&y);
}

struct kt_lw {
	struct completion ev;
	atomic_t last_wqe, other;
	bool sleepable;
};

static void kt_lw_event(struct ib_event *ev, void *ctx)
{
	struct kt_lw *lw = ctx;

	if (ev->event == IB_EVENT_QP_LAST_WQE_REACHED) {
		atomic_inc(&lw->last_wqe);
		lw->sleepable = preemptible();
	} else {
		atomic_inc(&lw->other);
	}
	complete(&lw->ev);
}

/* An RC QP on @srq (or none) with its own CQ, moved RESET -> INIT -> ERR. */
static struct ib_qp *kt_lw_qp(struct ib_cq *cq, struct ib_srq *srq, struct kt_lw *lw)
{
	struct ib_qp_init_attr qa = { .event_handler = kt_lw_event, .qp_context = lw,
				      .send_cq = cq, .recv_cq = cq, .srq = srq,
				      .qp_type = IB_QPT_RC, .sq_sig_type = IB_SIGNAL_ALL_WR };
	struct ib_qp_attr a = { .qp_state = IB_QPS_INIT, .port_num = 1 };
	struct ib_qp *qp;

	qa.cap.max_send_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_wr = srq ? 0 : 4;
	qa.cap.max_recv_sge = srq ? 0 : 1;
	qp = ib_create_qp(pd, &qa);
	if (IS_ERR(qp))
		return qp;
	if (ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			 IB_QP_ACCESS_FLAGS)) {
		ib_destroy_qp(qp);
		return ERR_PTR(-EINVAL);
	}
	a.qp_state = IB_QPS_ERR;
	ib_modify_qp(qp, &a, IB_QP_STATE);
	return qp;
}

static void kt_last_wqe(void)
{
	struct ib_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ib_cq_init_attr ca = { .cqe = 16 };
	struct kt_lw lw = {}, lw2 = {};
	struct ib_qp *qp = NULL, *qp2 = NULL;
	struct ib_srq *srq;
	struct ib_cq *cq;
	bool got;

	init_completion(&lw.ev);
	init_completion(&lw2.ev);
	cq = ib_create_cq(ibdev, NULL, NULL, NULL, &ca);
	if (IS_ERR(cq)) {
		report(false, "last-wqe-kernel", "ib_create_cq: %ld", PTR_ERR(cq));
		return;
	}
	srq = ib_create_srq(pd, &sa);
	if (IS_ERR(srq)) {
		report(false, "last-wqe-kernel", "ib_create_srq: %ld", PTR_ERR(srq));
		goto out_cq;
	}
	qp = kt_lw_qp(cq, srq, &lw);
	qp2 = kt_lw_qp(cq, NULL, &lw2);
	if (IS_ERR(qp) || IS_ERR(qp2)) {
		report(false, "last-wqe-kernel", "QPs: %d %d", PTR_ERR_OR_ZERO(qp),
		       PTR_ERR_OR_ZERO(qp2));
		goto out;
	}
	got = wait_for_completion_timeout(&lw.ev, KT_WAIT);
	msleep(500);	/* a second event, or one for the QP without an SRQ, would come by now */
	report(got && atomic_read(&lw.last_wqe) == 1 && !atomic_read(&lw.other) && lw.sleepable &&
	       !atomic_read(&lw2.last_wqe) && !atomic_read(&lw2.other), "last-wqe-kernel",
	       "SRQ QP: LAST_WQE_REACHED %d (want 1), other events %d, handler in %s context; "
	       "QP without an SRQ: LAST_WQE_REACHED %d (want 0)", atomic_read(&lw.last_wqe),
	       atomic_read(&lw.other), lw.sleepable ? "process" : "atomic",
	       atomic_read(&lw2.last_wqe));
out:
	if (!IS_ERR_OR_NULL(qp))
		ib_destroy_qp(qp);
	if (!IS_ERR_OR_NULL(qp2))
		ib_destroy_qp(qp2);
	ib_destroy_srq(srq);
out_cq:
	ib_destroy_cq(cq);
}

/* Post receives on @srq until it refuses one: how many it took, or -1 on an error not ENOMEM. */
static int kt_srq_fill(struct ib_srq *srq, int most)
{
	struct ib_recv_wr wr = {};
	const struct ib_recv_wr *bad;
	int n, err;

	for (n = 0; n <= most; n++) {
		wr.wr_id = n;
		err = ib_post_srq_recv(srq, &wr, &bad);
		if (err)
			return err == -ENOMEM ? n : -1;
	}
	return -1;
}

/*
 * ib_modify_srq(IB_SRQ_MAX_WR) on a kernel SRQ: a full SRQ grows and keeps its receives (it then
 * takes exactly as many more as its new max_wr leaves room for); fewer slots than receives wait
 * is EINVAL and changes nothing.
 */
static void kt_srq_resize(void)
{
	struct ib_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ib_srq_attr a = {}, q0 = {}, q1 = {};
	int full, more, e_small, e_grow;
	struct ib_srq *srq;

	srq = ib_create_srq(pd, &sa);
	if (IS_ERR(srq)) {
		report(false, "srq-resize-kernel", "ib_create_srq: %ld", PTR_ERR(srq));
		return;
	}
	full = kt_srq_fill(srq, 4096);
	ib_query_srq(srq, &q0);
	a.max_wr = full > 1 ? full / 2 : 1;	/* rounded up, still fewer than full (2^n - 1) */
	e_small = ib_modify_srq(srq, &a, IB_SRQ_MAX_WR);
	a.max_wr = 4 * full;
	e_grow = ib_modify_srq(srq, &a, IB_SRQ_MAX_WR);
	ib_query_srq(srq, &q1);
	more = e_grow ? -1 : kt_srq_fill(srq, 4096);
	report(full >= 8 && e_small == -EINVAL && !e_grow && q1.max_wr >= 4 * full &&
	       more == q1.max_wr - full, "srq-resize-kernel",
	       "full at %d receives (max_wr %u); to %d: %d (want -EINVAL); to %d: %d, max_wr %u, "
	       "then %d more receives (want %d)", full, q0.max_wr, full / 2, e_small, 4 * full,
	       e_grow, q1.max_wr, more, (int)q1.max_wr - full);
	ib_destroy_srq(srq);
}

int kt_verbs(void)
{
	kt_post_refused();
	kt_post_state();
	kt_last_wqe();
	kt_srq_resize();
	return 0;
}
