// SPDX-License-Identifier: GPL-2.0
/* rxe_cq.c - completion queues: create, resize, destroy, poll, arm, and rxe_cq_post(). */

#include "rxe.h"

int rxe_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr, struct ib_udata *udata)
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

int rxe_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata)
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
int rxe_cq_resize(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
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

int rxe_cq_poll(struct ib_cq *ibcq, int n, struct ib_wc *wc)
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

int rxe_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
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
