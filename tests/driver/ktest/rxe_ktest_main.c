// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_ktest_main.c - a kernel verbs caller for what only a kernel ULP can see of an rxe device.
 *
 *   insmod rxe_ktest.ko dev=rxe0 gid=N [held_gid=M]
 *
 * Loaded only in the test bed (tests/guest/driver_ktest.bats). Each case prints one line
 * "rxe_ktest: ok|FAIL <case>: <detail>" and init returns -EIO when a case failed (-ETIMEDOUT,
 * leaving everything allocated, when a handler never returned: a deadlock in the driver).
 *   dma-remote-refused  ib_alloc_pd(IB_PD_UNSAFE_GLOBAL_RKEY) and a remote-access DMA MR fail
 *   dma-local-mr        the PD's local DMA lkey carries a loopback SEND with the right bytes
 *   qp-event-handler    a real fault (WRITE with a bad rkey) raises IB_EVENT_QP_FATAL on both
 *                       QPs, and the handler calls ib_query_qp and ib_modify_qp from inside it
 *   cq-comp-handler     the completion handler polls the CQ and calls ib_query_qp from inside it
 *   app-err-flush       a QP the consumer moves to ERR flushes its posted receive, and raises
 *                       no IB_EVENT_QP_FATAL (it is no fault)
 *   sgid-setup          (held_gid) an RC QP and a UD AH on GID M; the test then deletes the
 *                       address behind M, and rmmod uses and destroys them (sgid-teardown)
 *   frmr-*              fast-register MRs, local and remote invalidation: rxe_ktest_frmr.c
 *   post-refused, post-state, last-wqe-kernel   UC/UD refusals and the QP states that refuse
 *                       posts at post time, LAST_WQE_REACHED on an SRQ QP: rxe_ktest_verbs.c
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include "rxe_ktest.h"

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the ib device to test");
int gid = -1;
module_param(gid, int, 0444);
MODULE_PARM_DESC(gid, "GID index for the loopback QPs (a RoCE v2 GID of a local address)");
static int held_gid = -1;
module_param(held_gid, int, 0444);
MODULE_PARM_DESC(held_gid, "GID index the test deletes while a QP and an AH hold it (-1: none)");

int failures;

struct ib_device *ibdev;
struct ib_pd *pd;
static struct kt_qp e1, e2, e3, held_rc, held_ud;
static struct ib_ah *held_ah;

static void kt_comp(struct ib_cq *cq, void *ctx)
{
	struct kt_qp *e = ctx;
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;
	struct ib_wc wc;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		while (ib_poll_cq(cq, 1, &wc) > 0) {
			e->last = wc;
			WRITE_ONCE(e->last_status, wc.status);
			if (wc.status != IB_WC_SUCCESS)
				WRITE_ONCE(e->nerr, e->nerr + 1);
			WRITE_ONCE(e->ncomp, e->ncomp + 1);
		}
		if (!pass)
			ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	}
	/* A kernel ULP's handler may query the QP; it can only sleep in process context. */
	if (preemptible() && e->qp) {
		e->comp_query_err = ib_query_qp(e->qp, &a, IB_QP_STATE, &ia);
		e->comp_sleepable = true;
	}
	complete(&e->comp);
}

static void kt_event(struct ib_event *ev, void *ctx)
{
	struct kt_qp *e = ctx;
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a = {};

	WRITE_ONCE(e->ev_entered, true);
	if (ev->event == IB_EVENT_QP_FATAL)
		atomic_inc(&e->fatal);
	if (preemptible()) {
		e->ev_query_err = ib_query_qp(ev->element.qp, &a, IB_QP_STATE, &ia);
		e->ev_state = a.qp_state;
		a.qp_state = IB_QPS_ERR;
		e->ev_modify_err = ib_modify_qp(ev->element.qp, &a, IB_QP_STATE);
		e->ev_sleepable = true;
	}
	complete(&e->event);
}

/* Wait until @e's completion handler has counted @n completions; false on timeout. */
bool kt_wait_comps(struct kt_qp *e, int n)
{
	unsigned long end = jiffies + KT_WAIT;

	while (READ_ONCE(e->ncomp) < n) {
		long left = (long)(end - jiffies);

		if (left <= 0 || !wait_for_completion_timeout(&e->comp, left))
			return READ_ONCE(e->ncomp) >= n;
	}
	return true;
}

int kt_qp_create_pd(struct kt_qp *e, enum ib_qp_type type, struct ib_pd *qpd)
{
	struct ib_cq_init_attr ca = { .cqe = 16 };
	struct ib_qp_init_attr qa = {};
	int err;

	init_completion(&e->comp);
	init_completion(&e->event);
	atomic_set(&e->fatal, 0);
	e->buf = kzalloc(KT_BUF, GFP_KERNEL);
	if (!e->buf)
		return -ENOMEM;
	e->dma = ib_dma_map_single(ibdev, e->buf, KT_BUF, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, e->dma)) {
		err = -EIO;
		goto err_buf;
	}
	e->cq = ib_create_cq(ibdev, kt_comp, NULL, e, &ca);
	if (IS_ERR(e->cq)) {
		err = PTR_ERR(e->cq);
		goto err_map;
	}
	qa.event_handler = kt_event;
	qa.qp_context = e;
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.sq_sig_type = IB_SIGNAL_ALL_WR;
	qa.qp_type = type;
	e->qp = ib_create_qp(qpd, &qa);
	if (IS_ERR(e->qp)) {
		err = PTR_ERR(e->qp);
		e->qp = NULL;
		goto err_cq;
	}
	ib_req_notify_cq(e->cq, IB_CQ_NEXT_COMP);
	return 0;

err_cq:
	ib_destroy_cq(e->cq);
err_map:
	ib_dma_unmap_single(ibdev, e->dma, KT_BUF, DMA_BIDIRECTIONAL);
err_buf:
	kfree(e->buf);
	e->buf = NULL;
	return err;
}

static int kt_qp_create(struct kt_qp *e, enum ib_qp_type type)
{
	return kt_qp_create_pd(e, type, pd);
}

void kt_qp_destroy(struct kt_qp *e)
{
	if (!e->buf)
		return;
	if (e->qp)
		ib_destroy_qp(e->qp);
	e->qp = NULL;
	ib_destroy_cq(e->cq);
	ib_dma_unmap_single(ibdev, e->dma, KT_BUF, DMA_BIDIRECTIONAL);
	kfree(e->buf);
	e->buf = NULL;
}

/* A RoCE address handle attribute to GID @index of port 1 (the local address behind it). */
static int kt_ah_attr(struct rdma_ah_attr *ah, int index)
{
	const struct ib_gid_attr *ga;
	struct net_device *ndev;
	int err = 0;

	ga = rdma_get_gid_attr(ibdev, 1, index);
	if (IS_ERR(ga))
		return PTR_ERR(ga);
	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, 1);
	rdma_ah_set_grh(ah, (union ib_gid *)&ga->gid, 0, index, 64, 0);
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(ga);
	if (IS_ERR(ndev))
		err = PTR_ERR(ndev);
	else
		ether_addr_copy(ah->roce.dmac, ndev->dev_addr);
	rcu_read_unlock();
	rdma_put_gid_attr(ga);
	return err;
}

static int kt_modify(struct ib_qp *qp, struct ib_qp_attr *a, int mask)
{
	return ib_modify_qp(qp, a, mask);
}

/* Move RC QP @e to RTS, connected to QP number @dqpn over GID @index. */
int kt_rc_connect(struct kt_qp *e, u32 dqpn, int index)
{
	struct ib_qp_attr a = {};
	int err;

	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	err = kt_modify(e->qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	err = kt_ah_attr(&a.ah_attr, index);
	if (err)
		return err;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	err = kt_modify(e->qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 1;
	a.rnr_retry = 1;
	a.sq_psn = 100;
	a.max_rd_atomic = 1;
	return kt_modify(e->qp, &a, IB_QP_STATE | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			 IB_QP_RNR_RETRY | IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC);
}

int kt_post_recv(struct kt_qp *e)
{
	struct ib_sge sge = { .addr = e->dma, .length = KT_BUF, .lkey = pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(e->qp, &wr, NULL);
}

/* Case dma-remote-refused. */
static void kt_dma_remote(void)
{
	struct ib_pd *bad;
	struct ib_mr *mr;

	bad = ib_alloc_pd(ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(bad)) {
		report(true, "dma-remote-refused", "ib_alloc_pd(IB_PD_UNSAFE_GLOBAL_RKEY) failed with %ld",
		       PTR_ERR(bad));
	} else {
		report(false, "dma-remote-refused",
		       "ib_alloc_pd(IB_PD_UNSAFE_GLOBAL_RKEY) gave a PD with a global rkey 0x%x",
		       bad->unsafe_global_rkey);
		ib_dealloc_pd(bad);
	}
	mr = ibdev->ops.get_dma_mr(pd, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	if (IS_ERR(mr)) {
		report(true, "dma-remote-refused", "get_dma_mr(REMOTE_WRITE) failed with %ld",
		       PTR_ERR(mr));
	} else {
		report(false, "dma-remote-refused", "get_dma_mr(REMOTE_WRITE) gave rkey 0x%x", mr->rkey);
		mr->device = ibdev;
		mr->pd = pd;
		ibdev->ops.dereg_mr(mr, NULL);
	}
}

/* Cases dma-local-mr, qp-event-handler and cq-comp-handler on the loopback pair e1 -> e2. */
static int kt_handlers(void)
{
	struct ib_sge sge = { .length = 64, .lkey = pd->local_dma_lkey };
	struct ib_rdma_wr wwr = {};
	struct ib_send_wr swr = {};
	static const char msg[] = "rxe_ktest: a SEND through the local DMA lkey";
	int err;

	err = kt_qp_create(&e1, IB_QPT_RC) ?: kt_qp_create(&e2, IB_QPT_RC);
	if (err) {
		report(false, "setup", "creating the loopback RC QPs failed with %d", err);
		return 0;
	}
	err = kt_rc_connect(&e1, e2.qp->qp_num, gid) ?: kt_rc_connect(&e2, e1.qp->qp_num, gid);
	if (err) {
		report(false, "setup", "connecting the loopback RC QPs over GID %d failed with %d", gid,
		       err);
		return 0;
	}

	/* A SEND with the PD's local DMA lkey (a local-only DMA MR on this device). */
	sge.addr = e1.dma;
	memcpy(e1.buf, msg, sizeof(msg));
	swr.opcode = IB_WR_SEND;
	swr.send_flags = IB_SEND_SIGNALED;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	err = kt_post_recv(&e2) ?: ib_post_send(e1.qp, &swr, NULL);
	if (err) {
		report(false, "dma-local-mr", "posting the SEND failed with %d", err);
		return 0;
	}
	if (!kt_wait_comps(&e1, 1) || !kt_wait_comps(&e2, 1)) {
		report(false, "dma-local-mr", "no completion within 10 s (a handler deadlocked?)");
		return -ETIMEDOUT;
	}
	report(!e1.nerr && !e2.nerr && !memcmp(e2.buf, msg, sizeof(msg)), "dma-local-mr",
	       "SEND over lkey 0x%x (%s): sender status %d, receiver status %d, data %s",
	       pd->local_dma_lkey, pd->__internal_mr ? "internal DMA MR" : "device lkey",
	       e1.last_status, e2.last_status,
	       memcmp(e2.buf, msg, sizeof(msg)) ? "differs" : "matches");

	/* A real fault: RDMA WRITE with an rkey e2 never gave out; e2 has a receive posted. */
	err = kt_post_recv(&e2);
	wwr.wr.opcode = IB_WR_RDMA_WRITE;
	wwr.wr.send_flags = IB_SEND_SIGNALED;
	wwr.wr.sg_list = &sge;
	wwr.wr.num_sge = 1;
	wwr.remote_addr = e2.dma;
	wwr.rkey = 0x5a5a5a00;
	err = err ?: ib_post_send(e1.qp, &wwr.wr, NULL);
	if (err) {
		report(false, "qp-event-handler", "posting the bad-rkey WRITE failed with %d", err);
		return 0;
	}
	if (!wait_for_completion_timeout(&e1.event, KT_WAIT) ||
	    !wait_for_completion_timeout(&e2.event, KT_WAIT)) {
		report(false, "qp-event-handler",
		       "no async event within 10 s (requester %d, responder %d IB_EVENT_QP_FATAL)",
		       atomic_read(&e1.fatal), atomic_read(&e2.fatal));
		/* A handler that never ran is no deadlock; one that never returned is. */
		return READ_ONCE(e1.ev_entered) || READ_ONCE(e2.ev_entered) ? -ETIMEDOUT : 0;
	}
	report(atomic_read(&e1.fatal) == 1 && atomic_read(&e2.fatal) == 1 &&
	       e1.ev_sleepable && e2.ev_sleepable && !e1.ev_query_err && !e2.ev_query_err &&
	       e1.ev_state == IB_QPS_ERR && e2.ev_state == IB_QPS_ERR &&
	       !e1.ev_modify_err && !e2.ev_modify_err, "qp-event-handler",
	       "QP_FATAL %d/%d, handler in %s context, ib_query_qp %d/%d state %d/%d, ib_modify_qp(ERR) %d/%d",
	       atomic_read(&e1.fatal), atomic_read(&e2.fatal),
	       e1.ev_sleepable && e2.ev_sleepable ? "process" : "atomic",
	       e1.ev_query_err, e2.ev_query_err, e1.ev_state, e2.ev_state,
	       e1.ev_modify_err, e2.ev_modify_err);
	if (!kt_wait_comps(&e1, 2) || !kt_wait_comps(&e2, 2)) {
		report(false, "cq-comp-handler", "error completions missing after 10 s: %d/%d",
		       e1.ncomp, e2.ncomp);
		return 0;
	}
	report(e1.last_status == IB_WC_REM_ACCESS_ERR && e2.last_status == IB_WC_WR_FLUSH_ERR &&
	       e1.comp_sleepable && e2.comp_sleepable && !e1.comp_query_err && !e2.comp_query_err,
	       "cq-comp-handler",
	       "requester status %d (want %d), responder status %d (want %d), handler in %s context, ib_query_qp %d/%d",
	       e1.last_status, IB_WC_REM_ACCESS_ERR, e2.last_status, IB_WC_WR_FLUSH_ERR,
	       e1.comp_sleepable && e2.comp_sleepable ? "process" : "atomic",
	       e1.comp_query_err, e2.comp_query_err);
	return 0;
}

/* Case app-err-flush: the consumer's own move to ERR is no fault. */
static int kt_app_err(void)
{
	struct ib_qp_attr a = {};
	int err;

	err = kt_qp_create(&e3, IB_QPT_RC);
	if (!err) {
		a.qp_state = IB_QPS_INIT;
		a.port_num = 1;
		err = kt_modify(e3.qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
				IB_QP_ACCESS_FLAGS);
	}
	err = err ?: kt_post_recv(&e3);
	if (!err) {
		a.qp_state = IB_QPS_ERR;
		err = kt_modify(e3.qp, &a, IB_QP_STATE);
	}
	if (err) {
		report(false, "app-err-flush", "setting up the QP failed with %d", err);
		return 0;
	}
	if (!kt_wait_comps(&e3, 1)) {
		report(false, "app-err-flush", "no flush completion within 10 s");
		return -ETIMEDOUT;
	}
	msleep(500);
	report(e3.last_status == IB_WC_WR_FLUSH_ERR && !atomic_read(&e3.fatal) &&
	       e3.comp_sleepable && !e3.comp_query_err, "app-err-flush",
	       "status %d (want %d), IB_EVENT_QP_FATAL %d (want 0), handler in %s context, ib_query_qp %d",
	       e3.last_status, IB_WC_WR_FLUSH_ERR, atomic_read(&e3.fatal),
	       e3.comp_sleepable ? "process" : "atomic", e3.comp_query_err);
	return 0;
}

/* Case sgid-setup: a connected RC QP and a UD AH that hold GID held_gid. */
static void kt_sgid_setup(void)
{
	struct rdma_ah_attr ah;
	struct ib_qp_attr a = {};
	int err;

	err = kt_qp_create(&held_rc, IB_QPT_RC) ?: kt_qp_create(&held_ud, IB_QPT_UD);
	err = err ?: kt_rc_connect(&held_rc, held_rc.qp->qp_num, held_gid);
	if (!err) {
		a.qp_state = IB_QPS_INIT;
		a.port_num = 1;
		a.qkey = 0x11111111;
		err = kt_modify(held_ud.qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY);
	}
	if (!err) {
		a.qp_state = IB_QPS_RTR;
		err = kt_modify(held_ud.qp, &a, IB_QP_STATE);
	}
	if (!err) {
		a.qp_state = IB_QPS_RTS;
		a.sq_psn = 1;
		err = kt_modify(held_ud.qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
	}
	err = err ?: kt_ah_attr(&ah, held_gid);
	if (!err) {
		held_ah = rdma_create_ah(pd, &ah, RDMA_CREATE_AH_SLEEPABLE);
		if (IS_ERR(held_ah)) {
			err = PTR_ERR(held_ah);
			held_ah = NULL;
		}
	}
	report(!err, "sgid-setup", "RC QP %u connected to itself and a UD AH over GID %d: %d",
	       held_rc.qp ? held_rc.qp->qp_num : 0, held_gid, err);
}

/* Case sgid-teardown (at rmmod, after the test deleted the address): use, then destroy. */
static void kt_sgid_teardown(void)
{
	struct ib_sge sge = { .addr = held_ud.dma, .length = 32, .lkey = pd->local_dma_lkey };
	struct ib_sge rsge = { .addr = held_rc.dma, .length = 32, .lkey = pd->local_dma_lkey };
	struct ib_send_wr swr = { .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
				  .sg_list = &rsge, .num_sge = 1 };
	struct ib_ud_wr uwr = {};
	union ib_gid g;
	int qerr, uerr = -1, rerr = -1;

	if (held_gid < 0)
		return;
	qerr = rdma_query_gid(ibdev, 1, held_gid, &g);
	if (held_ah && held_ud.qp && held_rc.qp) {
		uwr.wr.opcode = IB_WR_SEND;
		uwr.wr.send_flags = IB_SEND_SIGNALED;
		uwr.wr.sg_list = &sge;
		uwr.wr.num_sge = 1;
		uwr.ah = held_ah;
		uwr.remote_qpn = held_ud.qp->qp_num;
		uwr.remote_qkey = 0x11111111;
		uerr = ib_post_send(held_ud.qp, &uwr.wr, NULL);
		rerr = ib_post_send(held_rc.qp, &swr, NULL);
		if (!uerr)
			kt_wait_comps(&held_ud, 1);
	}
	if (held_ah)
		rdma_destroy_ah(held_ah, RDMA_DESTROY_AH_SLEEPABLE);
	held_ah = NULL;
	kt_qp_destroy(&held_ud);
	kt_qp_destroy(&held_rc);
	report(true, "sgid-teardown",
	       "GID %d %s; UD send through the AH posted %d (status %d), RC send posted %d; all destroyed",
	       held_gid, qerr ? "is gone" : "is still in the table", uerr, held_ud.last_status, rerr);
}

static void kt_put_all(void)
{
	kt_sgid_teardown();
	kt_frmr_put();
	kt_qp_destroy(&e3);
	kt_qp_destroy(&e2);
	kt_qp_destroy(&e1);
	ib_dealloc_pd(pd);
	ib_device_put(ibdev);
}

static int __init rxe_ktest_init(void)
{
	int err;

	if (gid < 0) {
		pr_err("rxe_ktest: gid=N (the GID index of a local RoCE v2 address) is required\n");
		return -EINVAL;
	}
	ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!ibdev) {
		pr_err("rxe_ktest: no ib device %s\n", dev);
		return -ENODEV;
	}
	pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(pd)) {
		pr_err("rxe_ktest: ib_alloc_pd failed with %ld\n", PTR_ERR(pd));
		ib_device_put(ibdev);
		return PTR_ERR(pd);
	}
	pr_info("rxe_ktest: testing %s, GID %d, held GID %d\n", dev, gid, held_gid);

	kt_dma_remote();
	err = kt_handlers() ?: kt_app_err() ?: kt_frmr() ?: kt_verbs();
	if (err) {
		/* A handler never returned: the driver deadlocked; nothing can be freed safely. */
		pr_err("rxe_ktest: FAIL deadlock: leaving every object in place\n");
		return err;
	}
	if (held_gid >= 0)
		kt_sgid_setup();
	if (failures) {
		pr_info("rxe_ktest: %d case(s) failed\n", failures);
		kt_put_all();
		return -EIO;
	}
	pr_info("rxe_ktest: all cases passed\n");
	return 0;
}

static void __exit rxe_ktest_exit(void)
{
	kt_put_all();
	pr_info("rxe_ktest: unloaded\n");
}

module_init(rxe_ktest_init);
module_exit(rxe_ktest_exit);
MODULE_DESCRIPTION("rxectl test bed: kernel verbs caller for the bundled rdma_rxe");
MODULE_LICENSE("GPL");
