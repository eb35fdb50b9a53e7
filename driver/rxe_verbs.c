// SPDX-License-Identifier: GPL-2.0
/* rxe_verbs.c - verbs objects: device/port queries, contexts, PDs, AHs, CQs, SRQs and QPs. */

#include <linux/vmalloc.h>
#include <linux/hash.h>
#include <linux/wait_bit.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include "rxe.h"

int rxe_query_device(struct ib_device *ib, struct ib_device_attr *a, struct ib_udata *udata)
{
	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->sys_image_guid = ib->node_guid;
	a->max_mr_size = U64_MAX;
	a->page_size_cap = ~(u64)(PAGE_SIZE - 1);
	a->vendor_id = 0xffffff;
	a->max_qp = RXE_MAX_QP;
	a->max_qp_wr = RXE_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN | IB_DEVICE_SYS_IMAGE_GUID |
			      IB_DEVICE_MEM_MGT_EXTENSIONS |	/* REG_MR, LOCAL_INV, SEND_WITH_INV */
			      IB_DEVICE_MEM_WINDOW |		/* type 1 and 2 windows: rxe_mw.c */
			      IB_DEVICE_MEM_WINDOW_TYPE_2B;	/* type 2: bound to a QP (as stock) */
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	a->max_send_sge = RXE_MAX_SGE;
	a->max_recv_sge = RXE_MAX_SGE;
	a->max_sge_rd = RXE_MAX_SGE;
	a->max_cq = RXE_MAX_CQ;
	a->max_cqe = RXE_MAX_CQE - 1;
	a->max_mr = RXE_MAX_MR;
	a->max_mw = RXE_MAX_MW;
	a->max_fast_reg_page_list_len = RXE_MAX_FRMR_PAGES;
	a->max_pd = RXE_MAX_PD;
	a->max_qp_rd_atom = RXE_MAX_RD_ATOMIC;
	a->max_qp_init_rd_atom = RXE_MAX_RD_ATOMIC;
	a->max_res_rd_atom = RXE_MAX_RD_ATOMIC * 1024;
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_ah = RXE_MAX_AH;
	a->max_srq = RXE_MAX_SRQ;
	a->max_srq_wr = RXE_MAX_SRQ_WR - 1;
	a->max_srq_sge = RXE_MAX_SGE;
	a->max_mcast_grp = RXE_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = RXE_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = RXE_MAX_MCAST_GRP * RXE_MAX_MCAST_QP_ATTACH;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	return 0;
}

static bool rxe_port_up(struct rxe_dev *dev)
{
	return netif_running(dev->ndev) && netif_carrier_ok(dev->ndev);
}

int rxe_query_port(struct ib_device *ib, u32 port, struct ib_port_attr *a)
{
	struct rxe_dev *dev = to_rdev(ib);
	bool up = rxe_port_up(dev);

	memset(a, 0, sizeof(*a));
	a->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	a->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP : IB_PORT_PHYS_STATE_DISABLED;
	a->max_mtu = IB_MTU_4096;
	a->active_mtu = iboe_get_mtu(READ_ONCE(dev->ndev->mtu));
	a->gid_tbl_len = RXE_GID_TBL_LEN;
	a->port_cap_flags = IB_PORT_CM_SUP;
	a->max_msg_sz = RXE_MAX_MSG;
	a->pkey_tbl_len = 1;
	a->max_vl_num = 1;
	return ib_get_eth_speed(ib, port, &a->active_speed, &a->active_width);
}

int rxe_get_port_immutable(struct ib_device *ib, u32 port, struct ib_port_immutable *im)
{
	struct ib_port_attr a;
	int err;

	err = ib_query_port(ib, port, &a);
	if (err)
		return err;
	im->pkey_tbl_len = a.pkey_tbl_len;
	im->gid_tbl_len = a.gid_tbl_len;
	im->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	im->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer rxe_get_link_layer(struct ib_device *ib, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

int rxe_query_pkey(struct ib_device *ib, u32 port, u16 index, u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = RXE_DEFAULT_PKEY;
	return 0;
}

int rxe_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	return 0;
}

void rxe_dealloc_ucontext(struct ib_ucontext *uctx)
{
}

int rxe_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return rxe_count_get(&to_rdev(pd->device)->n_pd, RXE_MAX_PD) ? 0 : -ENOMEM;
}

int rxe_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_dec(&to_rdev(pd->device)->n_pd);
	return 0;
}

/* ---- address handles ---- */

int rxe_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init, struct ib_udata *udata)
{
	struct rxe_dev *dev = to_rdev(ibah->device);
	struct rxe_ah *ah = to_rah(ibah);
	gfp_t gfp = (init->flags & RDMA_CREATE_AH_SLEEPABLE) ? GFP_KERNEL : GFP_ATOMIC;
	struct rxe_create_ah_resp resp = {};
	int err;

	err = rxe_av_from_attr(dev, &ah->av, init->ah_attr);
	if (err)
		return err;
	err = xa_alloc_cyclic_irq(&dev->ahs, &ah->ah_num, ah, XA_LIMIT(1, RXE_MAX_AH),
				  &dev->next_ah, gfp);
	if (err < 0)
		return err;
	if (udata && udata->outlen) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
		if (err) {
			xa_erase_irq(&dev->ahs, ah->ah_num);
			return err;
		}
	}
	return 0;
}

int rxe_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct rxe_ah *ah = to_rah(ibah);
	unsigned long irqf;

	xa_lock_irqsave(&to_rdev(ibah->device)->ahs, irqf);
	__xa_erase(&to_rdev(ibah->device)->ahs, ah->ah_num);
	xa_unlock_irqrestore(&to_rdev(ibah->device)->ahs, irqf);
	return 0;
}

int rxe_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = ibah->type;
	return 0;
}

/* ---- completion queues ---- */

int rxe_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr, struct ib_udata *udata)
{
	struct rxe_dev *dev = to_rdev(ibcq->device);
	struct rxe_cq *cq = to_rcq(ibcq);
	struct rxe_create_cq_resp resp = {};
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe >= RXE_MAX_CQE)
		return -EINVAL;
	if (!rxe_count_get(&dev->n_cq, RXE_MAX_CQ))
		return -ENOMEM;
	spin_lock_init(&cq->lock);
	cq->user = !!udata;
	err = rxe_queue_init(dev, &cq->q, attr->cqe, sizeof(union rxe_cqe), udata, &resp.mi);
	if (err)
		goto err_count;
	cq->ib.cqe = cq->q.mask;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
		if (err) {
			rxe_queue_free(&cq->q);
			goto err_count;
		}
	}
	return 0;

err_count:
	atomic_dec(&dev->n_cq);
	return err;
}

int rxe_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	rxe_queue_free(&to_rcq(ibcq)->q);
	atomic_dec(&to_rdev(ibcq->device)->n_cq);
	return 0;
}

/*
 * Resize a CQ (ibv_resize_cq, ib_resize_cq): a new ring of at least @cqe entries takes the
 * completions not yet polled, oldest first at its slot 0. Fewer entries than are waiting, or
 * more than max_cqe, is EINVAL and leaves the CQ as it was. A user CQ's provider (rdma-core's
 * rxe) unmaps the old ring and maps the new one from the mminfo returned here (struct
 * rxe_resize_cq_resp); the old ring lives until its last mapping goes (rxe_mmap_free()).
 */
int rxe_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct rxe_dev *dev = to_rdev(ibcq->device);
	struct rxe_cq *cq = to_rcq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	struct rxe_queue nq, oq;
	unsigned long flags;
	u32 cons, n;
	int err;

	if (cqe < 1 || cqe >= RXE_MAX_CQE)
		return -EINVAL;
	err = rxe_queue_init(dev, &nq, cqe, sizeof(union rxe_cqe), udata, &resp.mi);
	if (err)
		return err;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
		if (err)
			goto err_free;
	}
	spin_lock_irqsave(&cq->lock, flags);
	cons = smp_load_acquire(&cq->q.buf->consumer_index) & cq->q.mask;
	n = (cq->q.index - cons) & cq->q.mask;
	if (n > (u32)cqe) {
		spin_unlock_irqrestore(&cq->lock, flags);
		err = -EINVAL;
		goto err_free;
	}
	rxe_queue_move(&nq, &cq->q, cons, n, sizeof(union rxe_cqe));
	nq.index = n;		/* we produce */
	oq = cq->q;
	cq->q = nq;
	cq->ib.cqe = nq.mask;
	spin_unlock_irqrestore(&cq->lock, flags);
	rxe_queue_free(&oq);
	return 0;

err_free:
	rxe_queue_free(&nq);
	return err;
}

/*
 * Add one completion (in user ABI form) to @cq and raise the completion event if armed.
 * A full CQ loses the entry and reports IB_EVENT_CQ_ERR once.
 */
void rxe_cq_post(struct rxe_cq *cq, const struct ib_uverbs_wc *wc, struct rxe_qp *qp,
		 bool solicited)
{
	bool notify = false, overflow = false;
	union rxe_cqe *cqe;
	unsigned long flags;
	u32 cons;

	spin_lock_irqsave(&cq->lock, flags);
	cons = smp_load_acquire(&cq->q.buf->consumer_index);
	if (((cq->q.index + 1 - cons) & cq->q.mask) == 0) {
		overflow = !cq->overflow;
		cq->overflow = true;
		goto out;
	}
	cqe = rxe_queue_slot(&cq->q, cq->q.index);
	if (cq->user) {
		memcpy(&cqe->u, wc, sizeof(*wc));
	} else {
		struct ib_wc *k = &cqe->k;

		memset(k, 0, sizeof(*k));
		k->wr_id = wc->wr_id;
		k->status = wc->status;
		k->opcode = wc->opcode;
		k->byte_len = wc->byte_len;
		k->qp = &qp->ib;
		k->ex.imm_data = wc->ex.imm_data;
		k->src_qp = wc->src_qp;
		k->wc_flags = wc->wc_flags;
		k->port_num = 1;
		k->network_hdr_type = RDMA_NETWORK_IPV4;
	}
	cq->q.index = (cq->q.index + 1) & cq->q.mask;
	smp_store_release(&cq->q.buf->producer_index, cq->q.index);
	if (cq->armed == IB_CQ_NEXT_COMP || (cq->armed == IB_CQ_SOLICITED && solicited)) {
		cq->armed = 0;
		notify = true;
	}
out:
	spin_unlock_irqrestore(&cq->lock, flags);
	/* Delivered by the QP's worker once it has dropped qp->lock (rxe_cq_deliver). */
	if (notify)
		set_bit(RXE_EV_CQ_COMP, &cq->events);
	if (overflow)
		set_bit(RXE_EV_CQ_ERR, &cq->events);
}

/* Run the completion handler and the overflow event rxe_cq_post() left for @cq. */
void rxe_cq_deliver(struct rxe_cq *cq)
{
	if (test_and_clear_bit(RXE_EV_CQ_COMP, &cq->events) && cq->ib.comp_handler)
		cq->ib.comp_handler(&cq->ib, cq->ib.cq_context);
	if (test_and_clear_bit(RXE_EV_CQ_ERR, &cq->events) && cq->ib.event_handler) {
		struct ib_event ev = { .device = cq->ib.device, .event = IB_EVENT_CQ_ERR,
				       .element.cq = &cq->ib };

		cq->ib.event_handler(&ev, cq->ib.cq_context);
	}
}

int rxe_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	unsigned long flags;
	int i = 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (i < n) {
		u32 cons = cq->q.buf->consumer_index & cq->q.mask;

		if (cons == cq->q.index)
			break;
		wc[i++] = ((union rxe_cqe *)rxe_queue_slot(&cq->q, cons))->k;
		smp_store_release(&cq->q.buf->consumer_index, (cons + 1) & cq->q.mask);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return i;
}

int rxe_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	unsigned long irqf;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqf);
	if (cq->armed != IB_CQ_NEXT_COMP)
		cq->armed = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    (smp_load_acquire(&cq->q.buf->consumer_index) & cq->q.mask) != cq->q.index)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqf);
	return ret;
}

/* ---- shared receive queues ---- */

int rxe_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init, struct ib_udata *udata)
{
	struct rxe_dev *dev = to_rdev(ibsrq->device);
	struct rxe_srq *srq = to_rsrq(ibsrq);
	struct rxe_create_srq_resp resp = {};
	static atomic_t srq_num = ATOMIC_INIT(0);
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!init->attr.max_wr || init->attr.max_wr >= RXE_MAX_SRQ_WR ||
	    init->attr.max_sge > RXE_MAX_SGE)
		return -EINVAL;
	if (!rxe_count_get(&dev->n_srq, RXE_MAX_SRQ))
		return -ENOMEM;
	spin_lock_init(&srq->lock);
	srq->user = !!udata;
	srq->max_sge = max_t(u32, init->attr.max_sge, 1);
	err = rxe_queue_init(dev, &srq->q, init->attr.max_wr,
			     sizeof(struct rxe_recv_wqe) + srq->max_sge * sizeof(struct rxe_sge),
			     udata, &resp.mi);
	if (err) {
		atomic_dec(&dev->n_srq);
		return err;
	}
	init->attr.max_wr = srq->q.mask;
	init->attr.max_sge = srq->max_sge;
	srq->limit = init->attr.srq_limit;
	if (udata) {
		resp.srq_num = atomic_inc_return(&srq_num) & 0xffffff;
		err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
		if (err) {
			rxe_queue_free(&srq->q);
			atomic_dec(&dev->n_srq);
			return err;
		}
	}
	return 0;
}

/*
 * Resize @srq to at least @max_wr receives: a new ring takes the receives not yet consumed,
 * oldest first at its slot 0, as rxe_resize_cq() does for completions. Fewer slots than
 * receives are posted, fewer than the armed limit, 0, or RXE_MAX_SRQ_WR and more is EINVAL and
 * leaves the SRQ as it was. A user SRQ's provider (rdma-core's rxe) holds its producer lock
 * across the call, passes the address of a struct mminfo in struct rxe_modify_srq_cmd, and maps
 * the new ring from what is written there; the old ring lives until its last mapping goes.
 */
static int rxe_resize_srq(struct rxe_srq *srq, u32 max_wr, u32 limit, struct ib_udata *udata)
{
	struct rxe_dev *dev = to_rdev(srq->ib.device);
	struct rxe_modify_srq_cmd cmd = {};
	struct rxe_queue nq, oq;
	struct mminfo mi = {};
	unsigned long flags;
	u32 cons, n;
	size_t esize;
	int err;

	if (!max_wr || max_wr >= RXE_MAX_SRQ_WR || max_wr < limit)
		return -EINVAL;
	if (udata) {
		if (udata->inlen < sizeof(cmd))
			return -EINVAL;
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
	}
	esize = sizeof(struct rxe_recv_wqe) + srq->max_sge * sizeof(struct rxe_sge);
	err = rxe_queue_init(dev, &nq, max_wr, esize, udata, &mi);
	if (err)
		return err;
	if (udata && copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi, sizeof(mi))) {
		err = -EFAULT;
		goto err_free;
	}
	spin_lock_irqsave(&srq->lock, flags);
	cons = srq->q.index;
	/* a user ring's producer index is the user's to write: trust it only as far as the mask */
	n = (smp_load_acquire(&srq->q.buf->producer_index) - cons) & srq->q.mask;
	if (n > nq.mask || nq.mask < limit) {
		spin_unlock_irqrestore(&srq->lock, flags);
		err = -EINVAL;
		goto err_free;
	}
	rxe_queue_move(&nq, &srq->q, cons, n, esize);
	nq.index = 0;		/* we consume */
	oq = srq->q;
	srq->q = nq;
	spin_unlock_irqrestore(&srq->lock, flags);
	rxe_queue_free(&oq);
	return 0;

err_free:
	rxe_queue_free(&nq);
	return err;
}

/*
 * ibv_modify_srq / ib_modify_srq: IB_SRQ_MAX_WR resizes the ring (rxe_resize_srq()),
 * IB_SRQ_LIMIT arms the limit event (0 disarms it). Both are checked before either applies.
 */
int rxe_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr, enum ib_srq_attr_mask mask,
		   struct ib_udata *udata)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);
	u32 limit = (mask & IB_SRQ_LIMIT) ? attr->srq_limit : READ_ONCE(srq->limit);
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EOPNOTSUPP;
	if ((mask & IB_SRQ_LIMIT) && !(mask & IB_SRQ_MAX_WR) && limit > srq->q.mask)
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		err = rxe_resize_srq(srq, attr->max_wr, limit, udata);
		if (err)
			return err;
	}
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_bh(&srq->lock);
		srq->limit = limit;
		spin_unlock_bh(&srq->lock);
	}
	return 0;
}

int rxe_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);

	attr->max_wr = srq->q.mask;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

int rxe_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	rxe_queue_free(&to_rsrq(ibsrq)->q);
	atomic_dec(&to_rdev(ibsrq->device)->n_srq);
	return 0;
}

/* Kernel receive posting into a ring we also consume from. */
static int rxe_post_recv_ring(struct rxe_queue *q, spinlock_t *lock, u32 max_sge,
			      const struct ib_recv_wr *wr, const struct ib_recv_wr **bad)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(lock, flags);
	for (; wr; wr = wr->next) {
		u32 prod = q->buf->producer_index & q->mask;
		u32 cons = smp_load_acquire(&q->buf->consumer_index);
		struct rxe_recv_wqe *w;
		int i;

		if (((prod + 1 - cons) & q->mask) == 0) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || wr->num_sge > max_sge) {
			err = -EINVAL;
			break;
		}
		w = rxe_queue_slot(q, prod);
		memset(w, 0, sizeof(*w));
		w->wr_id = wr->wr_id;
		w->dma.num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			w->dma.sge[i].addr = wr->sg_list[i].addr;
			w->dma.sge[i].length = wr->sg_list[i].length;
			w->dma.sge[i].lkey = wr->sg_list[i].lkey;
			w->dma.length += wr->sg_list[i].length;
		}
		smp_store_release(&q->buf->producer_index, (prod + 1) & q->mask);
	}
	spin_unlock_irqrestore(lock, flags);
	if (err)
		*bad = wr;
	return err;
}

int rxe_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);

	return rxe_post_recv_ring(&srq->q, &srq->lock, srq->max_sge, wr, bad);
}

/* Copy out the receive WQE at the consumer index of @q and release its slot. */
static int rxe_take_rwqe(struct rxe_queue *q, u32 max_sge, struct rxe_rwqe *rw, u32 *avail)
{
	struct rxe_recv_wqe hdr;
	void *slot;

	*avail = rxe_queue_avail(q);
	if (!*avail)
		return -ENOSPC;
	slot = rxe_queue_slot(q, q->index);
	memcpy(&hdr, slot, sizeof(hdr));
	rw->wr_id = hdr.wr_id;
	rw->num_sge = hdr.dma.num_sge;
	if (rw->num_sge > max_sge)
		rw->num_sge = 0;	/* garbage: treat as a zero-length buffer */
	memcpy(rw->sge, slot + sizeof(hdr), rw->num_sge * sizeof(struct rxe_sge));
	rxe_queue_consume(q);
	return 0;
}

/*
 * Take the next receive WQE (from the SRQ or the QP's RQ) and copy it out; the slot is
 * released at once. Returns -ENOSPC when none is posted.
 */
int rxe_fetch_rwqe(struct rxe_qp *qp, struct rxe_rwqe *rw)
{
	struct rxe_srq *srq = qp->srq;
	bool limit_event = false;
	u32 i, avail;
	u64 len = 0;
	int err;

	if (srq) {
		spin_lock_bh(&srq->lock);
		err = rxe_take_rwqe(&srq->q, srq->max_sge, rw, &avail);
		if (!err && srq->limit && avail - 1 < srq->limit) {
			srq->limit = 0;
			limit_event = true;
		}
		spin_unlock_bh(&srq->lock);
	} else {
		err = rxe_take_rwqe(&qp->rq, qp->rq_max_sge, rw, &avail);
	}
	if (err)
		return err;

	for (i = 0; i < rw->num_sge; i++)
		len += rw->sge[i].length;
	rw->length = min_t(u64, len, RXE_MAX_MSG);
	if (limit_event)
		set_bit(RXE_EV_SRQ_LIMIT, &srq->events);	/* delivered by the worker */
	return 0;
}

/* ---- queue pairs ---- */

static void rxe_retry_timer_fn(struct timer_list *t)
{
	struct rxe_qp *qp = from_timer(qp, t, retry_timer);

	if (!READ_ONCE(qp->dying)) {
		WRITE_ONCE(qp->retry_fire, true);
		queue_work(rxe_wq, &qp->work);
	}
}

static void rxe_rnr_timer_fn(struct timer_list *t)
{
	struct rxe_qp *qp = from_timer(qp, t, rnr_timer);

	if (!READ_ONCE(qp->dying)) {
		WRITE_ONCE(qp->rnr_wait, false);
		queue_work(rxe_wq, &qp->work);
	}
}

/*
 * Execution model. A QP's work -- received packets (responder, completer), the retransmit
 * timeout, the flush and the requester -- runs under qp->lock (the RXE_QPF_LOCKED bit of
 * qp->flags: process context may wait for it and may sleep holding it, softirq only tries
 * it), in one of four places (enum rxe_run):
 *  - RXE_RUN_CALLER: a user QP's doorbell (post_send through uverbs, process context) runs
 *    it in the poster's system call;
 *  - RXE_RUN_NESTED: a packet looped back by a run of another QP (process context, that
 *    QP's lock held) runs its target user QP in the sender's context, one level deep: what a
 *    nested run sends is queued, never run nested again (rxe_rcv() has the conditions);
 *  - RXE_RUN_SOFTIRQ: a user QP's packets from the wire run it in softirq context, once per
 *    receive batch (the tasklet that follows the NET_RX softirq: rxe_qp_rx_batch()), when
 *    its lock is free and it has no WQE left to send (a stream's sender goes to the worker,
 *    which sends in the same run: rxe_qp_run_softirq()). Such a
 *    run sleeps nowhere and waits for nothing: it takes received packets only, allocates
 *    with GFP_ATOMIC, sends its loopback packets queued, and leaves to the worker a SEND with
 *    Invalidate (the invalidation waits for the MR's copies), the rest of a READ response
 *    burst, the retransmit timeout, the flush and the requester;
 *  - RXE_RUN_WORKER: the QP's work item on rxe_wq runs it for kernel QPs' wire receive, the
 *    timers, kernel QPs' post_send (a kernel consumer may post from atomic context, so it is
 *    never run there) and whatever a run elsewhere leaves over.
 * Asking for a run sets RXE_QPF_RUN and then tries the lock; every holder of qp->lock, after
 * dropping it, tests the bit and runs again (or hands the rest to the worker). Both sides put
 * a full barrier between their store and their load, so either the asker's trylock succeeds
 * or the holder sees the bit: a doorbell or a packet is never left behind.
 *
 * Lock order: the running QP's qp->lock, then only a trylock of a nested target's; no path
 * blocks on a second qp->lock, so two QPs sending to each other cannot deadlock (the ACK
 * back to a QP whose run is up the stack goes to its rxq and to that run). rxq.lock,
 * cq->lock, srq->lock, sq_lock/rq_lock, and the mrs/ahs xarray locks are leaves, taken
 * under either and never held across a qp->lock acquisition or a packet send; each is
 * taken with bottom halves (or interrupts) off, as a softirq run may take it.
 */
#define RXE_CALLER_ROUNDS	4	/* runs in a poster's system call before the worker */
#define RXE_NESTED_ROUNDS	1	/* further runs of a nested QP before its worker */
#define RXE_WORKER_ROUNDS	4	/* runs per work item before it is queued again */
#define RXE_SOFTIRQ_BUDGET	64	/* received packets a softirq run takes (a NAPI poll's) */

/* Run user QPs' wire receive in the softirq (RXE_RUN_SOFTIRQ); off: their worker does. */
static bool rxe_rx_softirq = true;
module_param_named(rx_softirq, rxe_rx_softirq, bool, 0644);
MODULE_PARM_DESC(rx_softirq, "Handle a user QP's packets from the wire in the receiving softirq when its QP is idle (default on; off: in its work item)");

/* qp->lock: a bit lock, so that a softirq can try it and a verb can sleep waiting for it. */
static bool rxe_qp_trylock(struct rxe_qp *qp)
{
	return !test_and_set_bit_lock(RXE_QPF_LOCKED, &qp->flags);
}

static void rxe_qp_lock(struct rxe_qp *qp)
{
	might_sleep();
	wait_on_bit_lock(&qp->flags, RXE_QPF_LOCKED, TASK_UNINTERRUPTIBLE);
}

static void rxe_qp_unlock(struct rxe_qp *qp)
{
	clear_bit_unlock(RXE_QPF_LOCKED, &qp->flags);
	smp_mb__after_atomic();	/* the clear before the waiters are looked at */
	wake_up_bit(&qp->flags, RXE_QPF_LOCKED);
}

/* Queue the QP's work item (any context, qp->lock not needed). */
void rxe_qp_kick(struct rxe_qp *qp)
{
	if (!READ_ONCE(qp->dying))
		queue_work(rxe_wq, &qp->work);
}

/* Ask for another run; called with qp->lock held, the holder runs it before it returns. */
void rxe_qp_again(struct rxe_qp *qp)
{
	set_bit(RXE_QPF_RUN, &qp->flags);
}

/* Move to the error state; the next run flushes the queues. Called with qp->lock held. */
static void rxe_qp_set_error(struct rxe_qp *qp)
{
	qp->state = IB_QPS_ERR;
	qp->sq_flush_pending = true;
	rxe_qp_again(qp);
}

/*
 * A fault (protocol error, access violation, retries exhausted) moves the QP to the error
 * state and raises IB_EVENT_QP_FATAL. The event is delivered by the run after it drops
 * qp->lock, so the consumer's handler may query or modify the QP.
 */
void rxe_qp_error(struct rxe_qp *qp)
{
	if (qp->state == IB_QPS_ERR)
		return;
	rxe_qp_set_error(qp);
	if (qp->ib.qp_type != IB_QPT_GSI)
		set_bit(RXE_EV_QP_FATAL, &qp->events);
}

/* Deliver the events and completion notifications a run collected, without qp->lock. */
static void rxe_qp_deliver(struct rxe_qp *qp)
{
	struct rxe_srq *srq = qp->srq;

	if (test_and_clear_bit(RXE_EV_QP_FATAL, &qp->events) && qp->ib.event_handler) {
		struct ib_event ev = { .device = qp->ib.device, .event = IB_EVENT_QP_FATAL,
				       .element.qp = &qp->ib };

		qp->ib.event_handler(&ev, qp->ib.qp_context);
	}
	/* After the flush it follows (rxe_flush()): the receive completions are in the CQ. */
	if (test_and_clear_bit(RXE_EV_QP_LAST_WQE, &qp->events) && qp->ib.event_handler) {
		struct ib_event ev = { .device = qp->ib.device,
				       .event = IB_EVENT_QP_LAST_WQE_REACHED,
				       .element.qp = &qp->ib };

		qp->ib.event_handler(&ev, qp->ib.qp_context);
	}
	rxe_cq_deliver(qp->scq);
	if (qp->rcq && qp->rcq != qp->scq)
		rxe_cq_deliver(qp->rcq);
	if (srq && test_and_clear_bit(RXE_EV_SRQ_LIMIT, &srq->events) && srq->ib.event_handler) {
		struct ib_event ev = { .device = srq->ib.device,
				       .event = IB_EVENT_SRQ_LIMIT_REACHED,
				       .element.srq = &srq->ib };

		srq->ib.event_handler(&ev, srq->ib.srq_context);
	}
}

/* True when the requester has a WQE to send or resend (one posted and not yet all sent). */
static bool rxe_req_pending(struct rxe_qp *qp)
{
	return qp->req_idx != (smp_load_acquire(&qp->sq.buf->producer_index) & qp->sq.mask);
}

/*
 * One run of the QP's work, qp->lock held: received packets first, then the flush or the
 * requester. Each part has a budget; what is left sets RXE_QPF_RUN again. A softirq run
 * (RXE_RUN_SOFTIRQ) takes received packets only, and leaves to the worker what may wait or
 * take long (the execution model above).
 */
static void rxe_qp_run(struct rxe_qp *qp, enum rxe_run how)
{
	bool softirq = how == RXE_RUN_SOFTIRQ;
	int budget = softirq ? RXE_SOFTIRQ_BUDGET : 256;
	struct sk_buff *skb;

	clear_bit(RXE_QPF_RUN, &qp->flags);
	smp_mb__after_atomic();	/* cleared before the rxq, the ring and retry_fire are read */
	qp->nested = how == RXE_RUN_NESTED || softirq;
	rxe_counter_inc(qp->dev, how == RXE_RUN_WORKER ? RXE_CNT_WORKER_RUNS :
			softirq ? RXE_CNT_SOFTIRQ_RUNS : RXE_CNT_INLINE_RUNS);
	if (qp->rd_active && !softirq)
		rxe_read_continue(qp);
	while (!qp->rd_active && budget-- > 0 && (skb = skb_dequeue(&qp->rxq))) {
		u32 mask = rxe_opinfo[rxe_pkt(skb)->opcode].mask;

		if (softirq && (mask & RXE_IETH)) {
			/* the invalidation waits for the MR's copies: the worker's */
			skb_queue_head(&qp->rxq, skb);
			break;
		}
		if (qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR ||
		    (rxe_qp_is_conn(qp) && !rxe_pkt_from_peer(&qp->av, skb)))
			kfree_skb(skb);
		else if (mask & RXE_REQ)
			rxe_responder(qp, skb);
		else
			rxe_completer(qp, skb);
	}
	rxe_resp_ack_flush(qp);		/* the ACK the requests taken above are owed */
	if (softirq) {
		if (qp->state == IB_QPS_ERR ||
		    ((qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD) && rxe_req_pending(qp)))
			rxe_qp_again(qp);
	} else {
		/* Acknowledgements still queued here are not a timeout: take them first. */
		if (READ_ONCE(qp->retry_fire) && skb_queue_empty(&qp->rxq) && !qp->rd_active) {
			WRITE_ONCE(qp->retry_fire, false);
			if (qp->state == IB_QPS_RTS)
				rxe_comp_timeout(qp);
		}
		if (qp->state == IB_QPS_ERR) {
			if (rxe_flush(qp))
				rxe_qp_again(qp);	/* more to flush */
		} else if (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD)
			rxe_requester(qp);
	}
	if (!skb_queue_empty(&qp->rxq) || qp->rd_active || READ_ONCE(qp->retry_fire))
		rxe_qp_again(qp);
	qp->nested = false;
}

/*
 * Drop qp->lock after a run and deliver what it collected; run again while more was asked
 * for, up to @rounds more times, then leave the rest to the worker. If the lock is taken
 * meanwhile, its new holder sees RXE_QPF_RUN.
 */
static void rxe_qp_unlock_run(struct rxe_qp *qp, enum rxe_run how, int rounds)
{
	for (;;) {
		rxe_qp_unlock(qp);
		rxe_qp_deliver(qp);
		smp_mb();	/* the unlock before the test: pairs with rxe_qp_run_now() */
		if (!test_bit(RXE_QPF_RUN, &qp->flags) || READ_ONCE(qp->dying))
			return;
		if (rounds-- <= 0) {
			rxe_qp_kick(qp);
			return;
		}
		if (!rxe_qp_trylock(qp))
			return;		/* the new holder runs it */
		if (qp->dying) {
			rxe_qp_unlock(qp);
			return;
		}
		rxe_qp_run(qp, how);
	}
}

/*
 * Drop qp->lock taken by a verb (modify, query), not a run: work asked for meanwhile goes to
 * the worker (the verb's caller may hold locks a kernel consumer's handlers take).
 */
static void rxe_qp_unlock_verb(struct rxe_qp *qp)
{
	rxe_qp_unlock(qp);
	smp_mb();	/* as in rxe_qp_unlock_run() */
	if (test_bit(RXE_QPF_RUN, &qp->flags))
		rxe_qp_kick(qp);
}

/*
 * Ask for a run and take qp->lock for it if it is free: true when the caller holds it now;
 * false when its holder runs it instead, or the QP is being destroyed.
 */
static bool rxe_qp_claim(struct rxe_qp *qp)
{
	set_bit(RXE_QPF_RUN, &qp->flags);
	smp_mb__after_atomic();	/* the bit before the trylock: pairs with rxe_qp_unlock_run() */
	if (!rxe_qp_trylock(qp)) {
		rxe_counter_inc(qp->dev, RXE_CNT_RUN_HANDOFFS);
		return false;
	}
	if (qp->dying) {
		rxe_qp_unlock(qp);
		return false;
	}
	return true;
}

/*
 * Run the QP's work now in the caller's context (process context, no spinlock held, not in
 * a run of this QP): RXE_RUN_CALLER for a user QP's doorbell, RXE_RUN_NESTED for a looped-back
 * packet. When qp->lock is busy its holder runs it instead. Returns true when it ran here.
 */
bool rxe_qp_run_now(struct rxe_qp *qp, enum rxe_run how)
{
	if (!rxe_qp_claim(qp))
		return false;
	rxe_qp_run(qp, how);
	rxe_qp_unlock_run(qp, how, how == RXE_RUN_NESTED ? RXE_NESTED_ROUNDS : RXE_CALLER_ROUNDS);
	return true;
}

/*
 * A user QP's receive batch (rxe_rx_batch_run(), softirq, the QP held alive by qp->runners): run
 * it here if its lock is free (RXE_RUN_SOFTIRQ), else its holder does; a QP with WQEs still to
 * send goes to the worker, which takes its packets and sends in one run. What the run leaves
 * goes to the worker at once. Returns true when it ran here. (rx_softirq=0 is decided when
 * the QP is listed: rxe_qp_rx_batch().)
 */
static bool rxe_qp_run_softirq(struct rxe_qp *qp)
{
	if (!rxe_qp_claim(qp))
		return false;
	if (rxe_req_pending(qp)) {
		/*
		 * A sender with WQEs still to send (a stream): the ACK would free room that
		 * only the requester, in the worker, fills; one worker run takes both, and a
		 * batch of ACKs with them. RXE_QPF_RUN is set: the unlock hands it over.
		 */
		rxe_qp_unlock_run(qp, RXE_RUN_SOFTIRQ, 0);
		return false;
	}
	rxe_qp_run(qp, RXE_RUN_SOFTIRQ);
	rxe_qp_unlock_run(qp, RXE_RUN_SOFTIRQ, 0);
	return true;
}

/*
 * Wire receive batches. The packets one NAPI poll delivers to a user QP are run together:
 * rxe_rcv() queues each to the QP's rxq and lists the QP, once, on this CPU's batch, whose
 * tasklet runs after the NET_RX softirq that is delivering them (softirqs of a lower number
 * run first, and a tasklet raised meanwhile runs in the same pass or in ksoftirqd). One run
 * then takes the whole batch: one ACK for its SENDs and WRITEs (rxe_ack_later()), one
 * completer pass for its ACKs, one wake-up of the poller. A QP listed is held by a runners
 * count (destroy_qp waits for it) and by RXE_QPF_BATCHED, cleared before it runs: a packet
 * queued after the clear lists it again, one queued before it is taken by that run.
 */
struct rxe_rx_batch {
	struct llist_head	qps;
	struct tasklet_struct	tasklet;
};

static DEFINE_PER_CPU(struct rxe_rx_batch, rxe_rx_batches);

static void rxe_rx_batch_run(struct tasklet_struct *t)
{
	struct rxe_rx_batch *b = from_tasklet(b, t, tasklet);
	struct llist_node *list = llist_reverse_order(llist_del_all(&b->qps));
	struct rxe_qp *qp, *next;

	llist_for_each_entry_safe(qp, next, list, batch_node) {
		clear_bit(RXE_QPF_BATCHED, &qp->flags);
		smp_mb__after_atomic();	/* cleared before its rxq is read: pairs with rxe_qp_rx_batch() */
		rxe_counter_inc(qp->dev, RXE_CNT_RX_BATCHES);
		rxe_qp_run_softirq(qp);
		rxe_qp_runner_put(qp);
	}
}

/*
 * A user QP's packet from the wire is queued (softirq, a runners count held, which this
 * takes over): list the QP on this CPU's receive batch, unless it is listed already. Returns
 * false when the packet is left to the QP's worker instead (rx_softirq off).
 */
bool rxe_qp_rx_batch(struct rxe_qp *qp)
{
	struct rxe_rx_batch *b;

	if (!rxe_rx_softirq) {
		rxe_qp_want(qp);
		rxe_qp_runner_put(qp);
		return false;
	}
	/* fully ordered: the packet queued before the test, as the clear before the run */
	if (test_and_set_bit(RXE_QPF_BATCHED, &qp->flags)) {
		rxe_qp_runner_put(qp);
		return true;
	}
	b = this_cpu_ptr(&rxe_rx_batches);
	llist_add(&qp->batch_node, &b->qps);
	tasklet_schedule(&b->tasklet);
	return true;
}

void rxe_rx_batch_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct rxe_rx_batch *b = per_cpu_ptr(&rxe_rx_batches, cpu);

		init_llist_head(&b->qps);
		tasklet_setup(&b->tasklet, rxe_rx_batch_run);
	}
}

/* At unload, after every QP is gone (each waited for its batch run): none is left to run. */
void rxe_rx_batch_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		tasklet_kill(&per_cpu_ptr(&rxe_rx_batches, cpu)->tasklet);
}

/*
 * Ask for a run of the QP's work from any context (softirq included) without running it
 * here: when qp->lock is held (or about to be, by a waiter), its holder runs it; otherwise
 * the worker does. The test of RXE_QPF_LOCKED is the load of the same store-buffering pair as the
 * trylock in rxe_qp_run_now(): a holder that unlocks after it tests the bit.
 */
void rxe_qp_want(struct rxe_qp *qp)
{
	set_bit(RXE_QPF_RUN, &qp->flags);
	smp_mb__after_atomic();	/* pairs with rxe_qp_unlock_run()/rxe_qp_unlock_verb() */
	if (test_bit(RXE_QPF_LOCKED, &qp->flags))
		rxe_counter_inc(qp->dev, RXE_CNT_RUN_HANDOFFS);
	else
		rxe_qp_kick(qp);
}

/*
 * Loopback direct placement (rxe_req.c) works on a second QP inside a run of the first: its
 * lock is only tried (the lock order allows no wait for a second qp->lock); false when it is
 * busy or the QP is being destroyed.
 */
bool rxe_qp_trylock_peer(struct rxe_qp *qp)
{
	if (!rxe_qp_trylock(qp))
		return false;
	if (qp->dying) {
		rxe_qp_unlock(qp);
		return false;
	}
	return true;
}

/*
 * Drop the peer's lock: deliver the completions the placement posted to its CQs (a user QP's:
 * uverbs' handlers), and leave any run asked of it meanwhile to its worker.
 */
void rxe_qp_unlock_peer(struct rxe_qp *qp)
{
	rxe_qp_unlock_run(qp, RXE_RUN_NESTED, 0);
}

/* The QP's work item. */
void rxe_qp_work(struct work_struct *work)
{
	struct rxe_qp *qp = container_of(work, struct rxe_qp, work);

	rxe_qp_lock(qp);
	if (qp->dying) {
		rxe_qp_unlock(qp);
		rxe_qp_deliver(qp);
		return;
	}
	rxe_qp_run(qp, RXE_RUN_WORKER);
	rxe_qp_unlock_run(qp, RXE_RUN_WORKER, RXE_WORKER_ROUNDS);
}

int rxe_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata)
{
	struct rxe_dev *dev = to_rdev(ibqp->device);
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_create_qp_resp resp = {};
	struct ib_qp_cap *cap = &init->cap;
	size_t room, elem;
	u32 qpn;
	int err;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		if (udata)
			return -EOPNOTSUPP;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (cap->max_send_wr >= RXE_MAX_QP_WR || cap->max_recv_wr >= RXE_MAX_QP_WR ||
	    cap->max_send_sge > RXE_MAX_SGE || cap->max_recv_sge > RXE_MAX_SGE ||
	    cap->max_inline_data > RXE_MAX_INLINE)
		return -EINVAL;
	if (!init->send_cq || (!init->recv_cq && !init->srq))
		return -EINVAL;
	if (!rxe_count_get(&dev->n_qp, RXE_MAX_QP))
		return -ENOMEM;

	qp->dev = dev;
	qp->user = !!udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = to_rcq(init->send_cq);
	qp->rcq = init->recv_cq ? to_rcq(init->recv_cq) : NULL;
	qp->srq = init->srq ? to_rsrq(init->srq) : NULL;
	qp->state = IB_QPS_RESET;
	INIT_WORK(&qp->work, rxe_qp_work);
	qp->flags = 0;
	atomic_set(&qp->runners, 0);
	skb_queue_head_init(&qp->rxq);
	timer_setup(&qp->retry_timer, rxe_retry_timer_fn, 0);
	timer_setup(&qp->rnr_timer, rxe_rnr_timer_fn, 0);
	rxe_window_reset(qp);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);

	/* Send ring: each slot holds the WQE and either its SGEs or its inline data. */
	room = max_t(size_t, max_t(u32, cap->max_send_sge, 1) * sizeof(struct rxe_sge),
		     cap->max_inline_data);
	elem = roundup_pow_of_two(sizeof(struct rxe_send_wqe) + room);
	room = elem - sizeof(struct rxe_send_wqe);
	qp->sq_max_sge = min_t(size_t, room / sizeof(struct rxe_sge), RXE_MAX_SGE);
	qp->sq_max_inline = min_t(size_t, room, RXE_MAX_INLINE);
	err = rxe_queue_init(dev, &qp->sq, max_t(u32, cap->max_send_wr, 1), elem, udata,
			     &resp.sq_mi);
	if (err)
		goto err_count;
	qp->swqe_size = ALIGN(sizeof(struct rxe_swqe) +
			      max_t(size_t, qp->sq_max_sge * sizeof(struct rxe_sge),
				    qp->sq_max_inline), 8);
	qp->swqes = kvzalloc(array_size(qp->sq.mask + 1, qp->swqe_size),
			     GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN);
	if (!qp->swqes) {
		err = -ENOMEM;
		goto err_sq;
	}
	cap->max_send_wr = qp->sq.mask;
	cap->max_send_sge = qp->sq_max_sge;
	cap->max_inline_data = qp->sq_max_inline;

	if (!qp->srq) {
		qp->rq_max_sge = max_t(u32, cap->max_recv_sge, 1);
		err = rxe_queue_init(dev, &qp->rq, max_t(u32, cap->max_recv_wr, 1),
				     sizeof(struct rxe_recv_wqe) +
				     qp->rq_max_sge * sizeof(struct rxe_sge), udata, &resp.rq_mi);
		if (err)
			goto err_swqes;
		cap->max_recv_wr = qp->rq.mask;
		cap->max_recv_sge = qp->rq_max_sge;
	} else {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}

	err = rxe_route_init(&qp->route);
	if (err)
		goto err_rq;

	if (init->qp_type == IB_QPT_GSI) {
		qpn = RXE_GSI_QPN;
		err = xa_insert(&dev->qps, qpn, qp, GFP_KERNEL);
	} else {
		err = xa_alloc_cyclic(&dev->qps, &qpn, qp, XA_LIMIT(RXE_MIN_QPN, RXE_QPN_MASK),
				      &dev->next_qpn, GFP_KERNEL);
	}
	if (err < 0)
		goto err_route;
	qp->ib.qp_num = qpn;
	qp->src_port = 0xc000 | hash_32(qpn, 14);

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
		if (err)
			goto err_xa;
	}
	return 0;

err_xa:
	xa_erase(&dev->qps, qpn);
	synchronize_rcu();
	skb_queue_purge(&qp->rxq);
err_route:
	rxe_route_destroy(&qp->route);
err_rq:
	rxe_queue_free(&qp->rq);
err_swqes:
	kvfree(qp->swqes);
err_sq:
	rxe_queue_free(&qp->sq);
err_count:
	atomic_dec(&dev->n_qp);
	return err;
}

static void rxe_qp_reset(struct rxe_qp *qp)
{
	u32 prod = smp_load_acquire(&qp->sq.buf->producer_index) & qp->sq.mask;

	/* Forget everything queued; the rings start where their producers are. */
	qp->sq.index = prod;
	smp_store_release(&qp->sq.buf->consumer_index, prod);
	qp->sq_fetched = qp->req_idx = prod;
	if (qp->rq.buf) {
		prod = smp_load_acquire(&qp->rq.buf->producer_index) & qp->rq.mask;
		qp->rq.index = prod;
		smp_store_release(&qp->rq.buf->consumer_index, prod);
	}
	rxe_resp_reset(qp);
	qp->msn = 0;
	qp->nak_sent = false;
	qp->rnr_wait = false;
	rxe_loss_repairs_clear(qp);
	qp->sq_flush_pending = false;
	qp->last_wqe_raised = false;
}

int rxe_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask, struct ib_udata *udata)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_dev *dev = qp->dev;
	enum ib_qp_state cur, new;
	struct rxe_resp_res *res = NULL, *old_res = NULL;
	bool new_res = false;
	struct rxe_addr av;
	int err = 0;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	rxe_qp_lock(qp);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	if (((mask & IB_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > RXE_MAX_RD_ATOMIC) ||
	    ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	     attr->max_dest_rd_atomic > RXE_MAX_RD_ATOMIC) ||
	    ((mask & IB_QP_PORT) && attr->port_num != 1) ||
	    ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index != 0) ||
	    ((mask & IB_QP_PATH_MTU) &&
	     (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))) {
		err = -EINVAL;
		goto out;
	}
	/* Responder resources: allocated (charged) before anything changes, so ENOMEM leaves
	 * the QP as it was. */
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic != qp->nres) {
		new_res = true;
		if (attr->max_dest_rd_atomic) {
			res = kcalloc(attr->max_dest_rd_atomic, sizeof(*res),
				      GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
			if (!res) {
				err = -ENOMEM;
				goto out;
			}
		}
	}
	if (mask & IB_QP_AV) {
		err = rxe_av_from_attr(dev, &av, &attr->ah_attr);
		if (err) {
			kfree(res);
			goto out;
		}
		qp->av = av;
		rxe_route_reset(&qp->route);
	}
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_QKEY)
		qp->attr.qkey = attr->qkey;
	if (mask & IB_QP_PATH_MTU)
		qp->attr.path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		qp->attr.timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->attr.retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->attr.rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (new_res) {	/* a new size forgets the old records, as a reset does */
		old_res = qp->res;
		qp->res = res;
		qp->nres = attr->max_dest_rd_atomic;
		qp->res_next = 0;
	}
	if (mask & IB_QP_DEST_QPN)
		qp->attr.dest_qp_num = attr->dest_qp_num & RXE_QPN_MASK;
	if (mask & IB_QP_RQ_PSN) {
		qp->attr.rq_psn = attr->rq_psn & RXE_PSN_MASK;
		qp->resp_psn = qp->attr.rq_psn;
	}
	if (mask & IB_QP_SQ_PSN) {
		qp->attr.sq_psn = attr->sq_psn & RXE_PSN_MASK;
		qp->req_psn = qp->acked_psn = qp->sent_psn = qp->attr.sq_psn;
		rxe_window_reset(qp);
	}
	if (mask & IB_QP_AV)
		rdma_replace_ah_attr(&qp->attr.ah_attr, &attr->ah_attr);	/* holds sgid_attr */
	if (qp->attr.path_mtu)
		qp->mtu = ib_mtu_enum_to_int(min(qp->attr.path_mtu,
						 iboe_get_mtu(READ_ONCE(dev->ndev->mtu))));
	else
		qp->mtu = ib_mtu_enum_to_int(iboe_get_mtu(READ_ONCE(dev->ndev->mtu)));
	if (qp->mtu <= 0)
		qp->mtu = 256;

	if (mask & IB_QP_STATE) {
		if (new == IB_QPS_RESET)
			rxe_qp_reset(qp);
		if (new == IB_QPS_RTS && cur != IB_QPS_RTS) {
			rxe_retries_refill(qp);
			qp->rnr_left = qp->attr.rnr_retry;
			rxe_loss_repairs_clear(qp);
		}
		if (new == IB_QPS_ERR) {
			/* The consumer's own request: flush, but no fatal event. */
			if (qp->state != IB_QPS_ERR)
				rxe_qp_set_error(qp);
		}
		else
			qp->state = new;
	}
	qp->attr.qp_state = qp->state;
out:
	rxe_qp_unlock_verb(qp);
	kfree(old_res);
	if (!err && qp->state >= IB_QPS_RTR)
		rxe_qp_kick(qp);
	return err;
}

int rxe_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct rxe_qp *qp = to_rqp(ibqp);

	rxe_qp_lock(qp);
	*attr = qp->attr;
	/* The stored sgid_attr reference stays ours; the caller gets no pointer to it. */
	attr->ah_attr.grh.sgid_attr = NULL;
	attr->qp_state = attr->cur_qp_state = qp->state;
	attr->sq_psn = qp->req_psn;
	attr->rq_psn = qp->resp_psn;
	attr->port_num = 1;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->cap.max_send_wr = qp->sq.mask;
	attr->cap.max_send_sge = qp->sq_max_sge;
	attr->cap.max_inline_data = qp->sq_max_inline;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq.mask;
	attr->cap.max_recv_sge = qp->srq ? 0 : qp->rq_max_sge;
	rxe_qp_unlock_verb(qp);
	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

int rxe_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct rxe_qp *qp = to_rqp(ibqp);

	spin_lock_bh(&qp->rxq.lock);
	WRITE_ONCE(qp->dying, true);
	spin_unlock_bh(&qp->rxq.lock);
	xa_erase(&qp->dev->qps, ibqp->qp_num);
	rxe_mcast_qp_gone(qp);
	synchronize_rcu();	/* no receive (by QPN or by group) still holds the QP */
	/* Nested runs counted themselves inside an RCU read section: wait for them to end. */
	wait_var_event(&qp->runners, !atomic_read(&qp->runners));
	rxe_timer_stop_sync(&qp->retry_timer);
	rxe_timer_stop_sync(&qp->rnr_timer);
	cancel_work_sync(&qp->work);
	rxe_timer_stop_sync(&qp->retry_timer);
	rxe_timer_stop_sync(&qp->rnr_timer);
	skb_queue_purge(&qp->rxq);
	rxe_qp_lock(qp);
	rxe_resp_reset(qp);
	rxe_qp_unlock(qp);
	/* No run of the QP is left to bind a window to it: free the ones bound. */
	rxe_mw_qp_gone(qp);
	kfree(qp->res);
	rxe_route_destroy(&qp->route);
	rxe_queue_free(&qp->rq);
	kvfree(qp->swqes);
	rxe_queue_free(&qp->sq);
	rdma_destroy_ah_attr(&qp->attr.ah_attr);
	atomic_dec(&qp->dev->n_qp);
	return 0;
}

/* Kernel send posting: convert each ib_send_wr into the ring format. */
static int rxe_post_one(struct rxe_qp *qp, const struct ib_send_wr *wr)
{
	u32 prod = qp->sq.buf->producer_index & qp->sq.mask;
	u32 cons = smp_load_acquire(&qp->sq.buf->consumer_index);
	struct rxe_send_wqe *w;
	u64 len = 0;
	int i;

	if (((prod + 1 - cons) & qp->sq.mask) == 0)
		return -ENOMEM;
	if (wr->num_sge < 0 || wr->num_sge > qp->sq_max_sge)
		return -EINVAL;
	/* An opcode the QP's type does not have (READ on UC, WRITE on UD) is refused here. */
	if (!rxe_wr_opcode_ok(qp, wr->opcode))
		return -EINVAL;
	w = rxe_queue_slot(&qp->sq, prod);
	memset(w, 0, sizeof(*w));
	w->wr.wr_id = wr->wr_id;
	w->wr.opcode = wr->opcode;
	w->wr.send_flags = wr->send_flags;
	w->wr.ex.imm_data = wr->ex.imm_data;
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		w->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		w->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		w->wr.wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		w->wr.wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		w->wr.wr.atomic.swap = atomic_wr(wr)->swap;
		w->wr.wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		if (rxe_qp_is_ud(qp)) {
			w->wr.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
			w->wr.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
			w->wr.wr.ud.ah_num = to_rah(ud_wr(wr)->ah)->ah_num;
		}
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		/* The key is in ex.invalidate_rkey, copied above with the union. */
		break;
	case IB_WR_REG_MR:
		/* This ring is the kernel's own (never mapped), so it may hold the ib_mr. */
		w->wr.wr.reg.mr = reg_wr(wr)->mr;
		w->wr.wr.reg.key = reg_wr(wr)->key;
		w->wr.wr.reg.access = reg_wr(wr)->access;
		break;
	default:
		return -EINVAL;
	}
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = w->dma.inline_data;

		if (len > qp->sq_max_inline)
			return -EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else {
		for (i = 0; i < wr->num_sge; i++) {
			w->dma.sge[i].addr = wr->sg_list[i].addr;
			w->dma.sge[i].length = wr->sg_list[i].length;
			w->dma.sge[i].lkey = wr->sg_list[i].lkey;
		}
	}
	w->dma.length = len;
	w->dma.resid = len;
	w->dma.num_sge = wr->num_sge;
	smp_store_release(&qp->sq.buf->producer_index, (prod + 1) & qp->sq.mask);
	return 0;
}

int rxe_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr, const struct ib_send_wr **bad)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	int err = 0;

	/*
	 * As stock 6.1: the send queue takes work from RTS on (RTS, SQD, and ERR, which flushes);
	 * before it (RESET, INIT, RTR) a post is EINVAL, the first WR named as bad. A user QP
	 * hears it from the doorbell: ibv_post_send returns EINVAL.
	 */
	if (state == IB_QPS_RESET || state == IB_QPS_INIT || state == IB_QPS_RTR) {
		*bad = wr;
		return -EINVAL;
	}
	if (qp->user) {
		/*
		 * Doorbell from the provider (uverbs: process context, and the QP cannot be
		 * destroyed during the call): the WQEs are in the shared ring; run the requester
		 * in the poster's system call.
		 */
		rxe_qp_run_now(qp, RXE_RUN_CALLER);
		return 0;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		err = rxe_post_one(qp, wr);
		if (err) {
			*bad = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	rxe_qp_kick(qp);
	return err;
}

int rxe_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr, const struct ib_recv_wr **bad)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	int err;

	/* As stock 6.1: a QP in RESET, or one on an SRQ, takes no receive. */
	if (qp->srq || READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad = wr;
		return -EINVAL;
	}
	err = rxe_post_recv_ring(&qp->rq, &qp->rq_lock, qp->rq_max_sge, wr, bad);
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		rxe_qp_kick(qp);
	return err;
}
