// SPDX-License-Identifier: GPL-2.0
/* rxe_verbs.c - ib_device_ops entry points: queries, PDs, AHs, kernel posting; the rest below. */

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

/* ---- completion queues (rxe_cq.c) ---- */

int rxe_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr, struct ib_udata *udata)
{
	return rxe_cq_create(ibcq, attr, udata);
}

int rxe_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	return rxe_cq_destroy(ibcq, udata);
}

int rxe_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	return rxe_cq_resize(ibcq, cqe, udata);
}

int rxe_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc)
{
	return rxe_cq_poll(ibcq, n, wc);
}

int rxe_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	return rxe_cq_req_notify(ibcq, flags);
}

/* ---- shared receive queues (rxe_srq.c) ---- */

int rxe_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init, struct ib_udata *udata)
{
	return rxe_srq_create(ibsrq, init, udata);
}

int rxe_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr, enum ib_srq_attr_mask mask,
		   struct ib_udata *udata)
{
	return rxe_srq_modify(ibsrq, attr, mask, udata);
}

int rxe_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	return rxe_srq_query(ibsrq, attr);
}

int rxe_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	return rxe_srq_destroy(ibsrq, udata);
}

/* ---- queue pairs (rxe_qp.c) ---- */

int rxe_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata)
{
	return rxe_qp_create(ibqp, init, udata);
}

int rxe_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask, struct ib_udata *udata)
{
	return rxe_qp_modify(ibqp, attr, mask, udata);
}

int rxe_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	return rxe_qp_query(ibqp, attr, mask, init);
}

int rxe_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	return rxe_qp_destroy(ibqp, udata);
}

/* ---- posting: a kernel consumer's work requests into the rings ---- */

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
