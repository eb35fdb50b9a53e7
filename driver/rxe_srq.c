// SPDX-License-Identifier: GPL-2.0
/* rxe_srq.c - shared receive queues, and taking the next receive WQE (rxe_fetch_rwqe()). */

#include "rxe.h"

int rxe_srq_create(struct ib_srq *ibsrq, struct ib_srq_init_attr *init, struct ib_udata *udata)
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
 * oldest first at its slot 0, as rxe_cq_resize() does for completions. Fewer slots than
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
int rxe_srq_modify(struct ib_srq *ibsrq, struct ib_srq_attr *attr, enum ib_srq_attr_mask mask,
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

int rxe_srq_query(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);

	attr->max_wr = srq->q.mask;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

int rxe_srq_destroy(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	rxe_queue_free(&to_rsrq(ibsrq)->q);
	atomic_dec(&to_rdev(ibsrq->device)->n_srq);
	return 0;
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
