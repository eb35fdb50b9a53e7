// SPDX-License-Identifier: GPL-2.0
/* rxe_req.c - requester: copy send WQEs out of the ring, validate them, and transmit packets. */

#include "rxe.h"

bool rxe_is_rd_atomic(u32 opcode)
{
	return opcode == IB_WR_RDMA_READ || opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* Memory management work requests: executed by the requester, nothing goes on the wire. */
static bool rxe_is_local_op(u32 opcode)
{
	return opcode == IB_WR_REG_MR || opcode == IB_WR_LOCAL_INV || opcode == IB_WR_BIND_MW;
}

/*
 * The work request opcodes each QP type has: UD sends only; UC sends, RDMA WRITEs and memory
 * window binds (no READ, no atomics, no other memory operations); RC all of them. A kernel QP's
 * post_send refuses the others (EINVAL, as stock rxe does); a WQE a user QP's provider wrote
 * with one completes with IB_WC_LOC_QP_OP_ERR.
 */
bool rxe_wr_opcode_ok(struct rxe_qp *qp, u32 opcode)
{
	if (rxe_qp_is_ud(qp))
		return opcode == IB_WR_SEND || opcode == IB_WR_SEND_WITH_IMM;
	if (qp->ib.qp_type == IB_QPT_UC)
		return opcode == IB_WR_SEND || opcode == IB_WR_SEND_WITH_IMM ||
		       opcode == IB_WR_RDMA_WRITE || opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
		       (opcode == IB_WR_BIND_MW && qp->user);
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_LOCAL_INV:
		return true;
	case IB_WR_REG_MR:
		/* Its WQE names a kernel ib_mr: never taken from a ring user space writes. */
		return !qp->user;
	case IB_WR_BIND_MW:
		/* Windows are user space's (the kernel has no bind WR): from a user ring only. */
		return qp->user;
	default:
		return false;
	}
}

/* Find an AH of the QP's PD by number and copy its address vector. */
static int rxe_ah_av(struct rxe_dev *dev, struct ib_pd *pd, u32 ah_num, struct rxe_addr *av)
{
	struct rxe_ah *ah;
	unsigned long flags;
	int err = -EINVAL;

	xa_lock_irqsave(&dev->ahs, flags);
	ah = xa_load(&dev->ahs, ah_num);
	if (ah && ah->ib.pd == pd) {
		*av = ah->av;
		err = 0;
	}
	xa_unlock_irqrestore(&dev->ahs, flags);
	return err;
}

/*
 * Copy the WQE in ring slot @idx into its kernel copy and check it. The ring is shared with
 * user space, so it is read exactly once here; all later work uses the copy.
 */
static void rxe_fetch_swqe(struct rxe_qp *qp, u32 idx)
{
	const u8 *slot = rxe_queue_slot(&qp->sq, idx);
	struct rxe_swqe *w = rxe_swqe(qp, idx);
	struct rxe_send_wqe hdr;
	u64 len = 0;
	u32 i;

	memcpy(&hdr, slot, sizeof(hdr));
	memset(w, 0, sizeof(*w));
	w->wr_id = hdr.wr.wr_id;
	w->opcode = hdr.wr.opcode;
	w->flags = hdr.wr.send_flags;
	w->imm = hdr.wr.ex.imm_data;
	w->inv_rkey = hdr.wr.ex.invalidate_rkey;
	w->state = RXE_WQE_PENDING;

	if (!rxe_wr_opcode_ok(qp, w->opcode)) {
		w->bad_status = IB_WC_LOC_QP_OP_ERR;
		return;
	}
	switch (w->opcode) {
	case IB_WR_REG_MR:
		w->reg_mr = (uintptr_t)hdr.wr.wr.reg.mr;
		w->rkey = hdr.wr.wr.reg.key;
		w->reg_access = hdr.wr.wr.reg.access;
		return;
	case IB_WR_LOCAL_INV:
		return;		/* the key is in inv_rkey; no data */
	case IB_WR_BIND_MW:
		w->mw_key = hdr.wr.wr.mw.mw_rkey;
		w->mr_key = hdr.wr.wr.mw.mr_lkey;
		w->raddr = hdr.wr.wr.mw.addr;
		w->mw_len = hdr.wr.wr.mw.length;
		w->rkey = hdr.wr.wr.mw.rkey;
		w->reg_access = hdr.wr.wr.mw.access;
		return;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		w->raddr = hdr.wr.wr.atomic.remote_addr;
		w->rkey = hdr.wr.wr.atomic.rkey;
		w->compare = hdr.wr.wr.atomic.compare_add;
		w->swap_add = w->opcode == IB_WR_ATOMIC_CMP_AND_SWP ? hdr.wr.wr.atomic.swap :
			      hdr.wr.wr.atomic.compare_add;
		w->flags &= ~IB_SEND_INLINE;
		break;
	case IB_WR_RDMA_READ:
		w->flags &= ~IB_SEND_INLINE;
		fallthrough;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		w->raddr = hdr.wr.wr.rdma.remote_addr;
		w->rkey = hdr.wr.wr.rdma.rkey;
		break;
	default:
		if (rxe_qp_is_ud(qp)) {
			w->remote_qpn = hdr.wr.wr.ud.remote_qpn & RXE_QPN_MASK;
			w->remote_qkey = hdr.wr.wr.ud.remote_qkey;
			if (rxe_ah_av(qp->dev, qp->ib.pd, hdr.wr.wr.ud.ah_num, &w->av)) {
				w->bad_status = IB_WC_LOC_QP_OP_ERR;
				return;
			}
		}
		break;
	}

	if (w->flags & IB_SEND_INLINE) {
		len = hdr.dma.length;
		if (len > qp->sq_max_inline) {
			w->bad_status = IB_WC_LOC_LEN_ERR;
			return;
		}
		memcpy(w->data, slot + sizeof(hdr), len);
		w->inl = true;
	} else {
		w->num_sge = hdr.dma.num_sge;
		if (w->num_sge > qp->sq_max_sge) {
			w->num_sge = 0;
			w->bad_status = IB_WC_LOC_LEN_ERR;
			return;
		}
		memcpy(w->sge, slot + sizeof(hdr), w->num_sge * sizeof(struct rxe_sge));
		for (i = 0; i < w->num_sge; i++)
			len += w->sge[i].length;
	}
	if (len > RXE_MAX_MSG ||
	    (rxe_qp_is_ud(qp) && len > qp->mtu) ||
	    ((w->opcode == IB_WR_ATOMIC_CMP_AND_SWP || w->opcode == IB_WR_ATOMIC_FETCH_AND_ADD) &&
	     len != 8)) {
		w->bad_status = IB_WC_LOC_LEN_ERR;
		return;
	}
	w->length = len;
}

/*
 * True when @end (one past the newest PSN sent) leaves cwnd PSNs unacknowledged. Signed:
 * after a rewind req_psn is behind acked_psn and the flight is negative.
 */
bool rxe_window_full(const struct rxe_qp *qp, u32 end)
{
	return rxe_psn_diff(end, qp->acked_psn) >= (int)qp->cwnd;
}

u32 rxe_npkts(struct rxe_qp *qp, struct rxe_swqe *w)
{
	if (w->opcode == IB_WR_ATOMIC_CMP_AND_SWP || w->opcode == IB_WR_ATOMIC_FETCH_AND_ADD)
		return 1;
	return max_t(u32, 1, DIV_ROUND_UP(w->length, qp->mtu));
}

/*
 * The local ACK timeout (IBA 9.7.6.1.3): 4.096 us * 2^timeout, at least one jiffy. A timeout
 * of 0 means "infinite": no retransmit timer runs at all.
 */
static unsigned long rxe_retry_jiffies(struct rxe_qp *qp)
{
	u8 t = min_t(u8, qp->attr.timeout, 31);

	return max_t(unsigned long, 1, nsecs_to_jiffies(4096ULL << t));
}

void rxe_arm_retry(struct rxe_qp *qp)
{
	qp->resp_seen = false;
	if (qp->attr.timeout && rxe_psn_diff(qp->req_psn, qp->acked_psn) > 0 && !qp->dying)
		mod_timer(&qp->retry_timer, jiffies + rxe_retry_jiffies(qp));
	else
		rxe_timer_stop(&qp->retry_timer);
}

/*
 * Go-back-N resumes the oldest WQE, a SEND or WRITE already (partly) sent, at @psn inside it,
 * past its first packet: its next packet is the MIDDLE or LAST at @psn, built from the payload
 * at that offset. The responder has taken every packet before @psn (it acknowledged them) and
 * is mid-message there. False when @psn is not inside such a WQE past its first packet: the
 * caller then sends it anew, from the top (a loopback WQE may then be placed, e.g. after an
 * RNR NAK).
 * Resending a 1 MiB message from its start for a loss in its middle, as this driver did, sent
 * ~1000 duplicates a loss; on a wire losing 2 % that took longer than the retransmit timeout
 * every time and the QP ran out of retries (sendq4: 4.2 M duplicates for 0.4 M packets).
 */
bool rxe_resume_at(struct rxe_qp *qp, u32 psn)
{
	struct rxe_swqe *w;
	u32 k, off, left;

	if (qp->sq.index == qp->sq_fetched || qp->ib.qp_type != IB_QPT_RC)
		return false;
	w = rxe_swqe(qp, qp->sq.index);
	if (w->state == RXE_WQE_PENDING || w->state == RXE_WQE_DONE ||
	    rxe_is_rd_atomic(w->opcode) || rxe_is_local_op(w->opcode))
		return false;
	k = rxe_psn_diff(psn, w->first_psn);
	if ((int)k <= 0 || rxe_psn_diff(psn, w->last_psn) > 0 ||
	    rxe_psn_diff(w->last_psn, w->first_psn) + 1 != rxe_npkts(qp, w) ||
	    (u64)k * qp->mtu >= w->length)
		return false;
	off = k * qp->mtu;
	w->cur_sge = 0;
	w->sge_off = 0;
	for (left = off; left && w->cur_sge < w->num_sge && !w->inl; ) {
		u32 n = min(left, w->sge[w->cur_sge].length);

		left -= n;
		if (n == w->sge[w->cur_sge].length)
			w->cur_sge++;
		else
			w->sge_off = n;
	}
	w->sent = off;
	w->state = RXE_WQE_SENDING;
	qp->req_psn = psn;
	qp->req_idx = qp->sq.index;
	rxe_counter_inc(qp->dev, RXE_CNT_RESUMED_MID_MSG);
	return true;
}

/*
 * Go back to the oldest unacknowledged request (a timeout, a NAK): every WQE from the oldest on
 * is sent again, the oldest from acked_psn when that is inside it (rxe_resume_at()).
 */
void rxe_rewind(struct rxe_qp *qp)
{
	u32 idx = qp->sq.index;
	struct rxe_swqe *w;

	if (idx == qp->sq_fetched)
		return;
	w = rxe_swqe(qp, idx);
	if (w->state == RXE_WQE_PENDING)
		return;
	qp->pkts_since_ackreq = 0;
	qp->req_idx = qp->sq.index;
	for (idx = (idx + 1) & qp->sq.mask; idx != qp->sq_fetched; idx = (idx + 1) & qp->sq.mask) {
		struct rxe_swqe *x = rxe_swqe(qp, idx);

		if (x->state == RXE_WQE_PENDING)
			break;
		x->state = RXE_WQE_PENDING;
	}
	if (rxe_resume_at(qp, qp->acked_psn))
		return;
	qp->req_psn = w->first_psn;
	w->state = RXE_WQE_PENDING;
}

void rxe_complete_swqe(struct rxe_qp *qp, struct rxe_swqe *w, enum ib_wc_status status)
{
	if (status != IB_WC_SUCCESS && status != IB_WC_WR_FLUSH_ERR)
		rxe_dbg_qp(qp, "send WQE opcode %u completes with %s\n", w->opcode,
			   ib_wc_status_msg(status));
	if (status != IB_WC_SUCCESS || qp->sig_all || (w->flags & IB_SEND_SIGNALED)) {
		struct ib_uverbs_wc wc = {};

		wc.wr_id = w->wr_id;
		wc.status = status;
		switch (w->opcode) {
		case IB_WR_RDMA_WRITE:
		case IB_WR_RDMA_WRITE_WITH_IMM:
			wc.opcode = IB_WC_RDMA_WRITE;
			break;
		case IB_WR_RDMA_READ:
			wc.opcode = IB_WC_RDMA_READ;
			break;
		case IB_WR_ATOMIC_CMP_AND_SWP:
			wc.opcode = IB_WC_COMP_SWAP;
			break;
		case IB_WR_ATOMIC_FETCH_AND_ADD:
			wc.opcode = IB_WC_FETCH_ADD;
			break;
		case IB_WR_REG_MR:
			wc.opcode = IB_WC_REG_MR;
			break;
		case IB_WR_LOCAL_INV:
			wc.opcode = IB_WC_LOCAL_INV;
			break;
		case IB_WR_BIND_MW:
			wc.opcode = IB_WC_BIND_MW;
			break;
		default:
			wc.opcode = IB_WC_SEND;
			break;
		}
		wc.byte_len = w->length;
		wc.qp_num = qp->ib.qp_num;
		rxe_cq_post(qp->scq, &wc, qp, false);
	}
	if (status == IB_WC_SUCCESS && (w->opcode == IB_WR_SEND ||
	    w->opcode == IB_WR_SEND_WITH_IMM || w->opcode == IB_WR_SEND_WITH_INV))
		rxe_counter_inc(qp->dev, RXE_CNT_RDMA_SEND);
	w->state = RXE_WQE_DONE;
	if (qp->req_idx == qp->sq.index)
		qp->req_idx = (qp->req_idx + 1) & qp->sq.mask;
	rxe_queue_consume(&qp->sq);
}

static u32 rxe_rd_atomic_outstanding(struct rxe_qp *qp)
{
	u32 idx, n = 0;

	for (idx = qp->sq.index; idx != qp->req_idx; idx = (idx + 1) & qp->sq.mask) {
		struct rxe_swqe *w = rxe_swqe(qp, idx);

		if (w->state == RXE_WQE_SENT && rxe_is_rd_atomic(w->opcode))
			n++;
	}
	return n;
}

/*
 * Loopback direct placement (issue 10). A WQE of a user RC QP whose peer is a user RC QP of
 * this host (the same or another local rxe device) is carried out as one copy between the two
 * QPs' memory -- no packet, no ICRC, no ACK, no run of the peer -- when its packets would find
 * both sides idle: the peer in RTR or later and not in error, expecting exactly this QP's next
 * PSN (so it has taken every packet this QP sent: those still unacknowledged are acknowledged
 * then, unless a READ or atomic is among them, which waits for its responses), with the same
 * path MTU, in no message and sending no READ response, its path leading back here, and its
 * lock free right now. PSNs, MSN, responder resources, completions
 * and rdma_sends/rdma_recvs move as the packets would have moved them (rxe_resp_place() has
 * the peer's half), so the packet path can take over at any WQE. Anything else goes as
 * packets, counted as loopback_fallback: a busy or unready peer, no receive WQE (RNR), an
 * access, key or length error (the packet path NAKs it and fails the side at fault), SEND
 * with Invalidate, an atomic whose result is not one 8-byte SGE, a message over
 * RXE_PLACE_MAX (one copy holds both QPs' locks). loopback_place=0 (a module parameter,
 * writable at run time) sends every message as packets.
 */
#define RXE_PLACE_MAX	(4u << 20)

static bool rxe_place_on = true;
module_param_named(loopback_place, rxe_place_on, bool, 0644);
MODULE_PARM_DESC(loopback_place,
		 "RC messages between two QPs of this host as copies, no packets (default: on)");

static bool rxe_place_opcode(u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return true;
	default:
		return false;
	}
}

/*
 * True when @w (pending, the next to send; @outst READs and atomics outstanding before it) was
 * carried out by direct placement and completed.
 */
static bool rxe_place(struct rxe_qp *qp, struct rxe_swqe *w, u32 outst)
{
	struct rxe_qp *peer;
	bool placed = false;
	u32 npkts;

	if (!READ_ONCE(rxe_place_on) || !qp->user || qp->ib.qp_type != IB_QPT_RC)
		return false;
	peer = rxe_local_peer(qp);
	if (!peer)
		return false;		/* not to a local user RC QP: the wire's */
	npkts = rxe_npkts(qp, w);
	if (qp->state == IB_QPS_RTS && !outst && rxe_place_opcode(w->opcode) &&
	    w->length <= RXE_PLACE_MAX && rxe_qp_trylock_peer(peer)) {
		/*
		 * The peer expecting our next PSN has taken every packet we sent: with no READ
		 * or atomic among them, they are all acknowledged now, and the WQE is the oldest.
		 */
		if (peer->state >= IB_QPS_RTR && peer->state != IB_QPS_ERR &&
		    rxe_peer_is_ours(peer, qp) && peer->mtu == qp->mtu &&
		    peer->resp_psn == qp->req_psn && !peer->rd_active && !peer->w_resid &&
		    !(peer->rwqe_valid && peer->recv_off) &&
		    ((qp->acked_psn == qp->req_psn && qp->req_idx == qp->sq.index) ||
		     rxe_comp_peer_took_all(qp)))
			placed = !rxe_resp_place(peer, qp, w, npkts);
		rxe_qp_unlock_peer(peer);
	}
	rxe_qp_runner_put(peer);
	if (!placed) {
		rxe_counter_inc(qp->dev, RXE_CNT_LOOPBACK_FALLBACK);
		return false;
	}
	/* what the packets and their acknowledgement would have left here */
	w->first_psn = qp->req_psn;
	w->last_psn = rxe_psn_add(qp->req_psn, npkts - 1);
	w->sent = w->rx_off = w->length;
	w->state = RXE_WQE_SENT;
	qp->req_psn = rxe_psn_add(qp->req_psn, npkts);
	qp->acked_psn = qp->sent_psn = qp->req_psn;
	rxe_retries_refill(qp);
	rxe_loss_repairs_clear(qp);
	rxe_counter_inc(qp->dev, RXE_CNT_LOOPBACK_PLACED);
	rxe_complete_swqe(qp, w, IB_WC_SUCCESS);
	return true;
}

/*
 * IB_WR_REG_MR, IB_WR_LOCAL_INV (of an MR or a window) or IB_WR_BIND_MW. Errors (a key, MR,
 * window, PD or state the request may not use) complete it with IB_WC_LOC_PROT_ERR
 * (IB_WC_MW_BIND_ERR for a bind) and take the QP to the error state.
 */
static enum ib_wc_status rxe_local_op(struct rxe_qp *qp, struct rxe_swqe *w)
{
	int err;

	if (w->opcode == IB_WR_BIND_MW)
		return rxe_mw_bind(qp, w);
	if (w->opcode == IB_WR_REG_MR)
		err = rxe_mr_fast_reg(qp->dev, qp->ib.pd, w->reg_mr, w->rkey, w->reg_access);
	else if (rxe_key_is_mw(w->inv_rkey))
		err = rxe_mw_invalidate(qp, w->inv_rkey, false);
	else
		err = rxe_mr_invalidate(qp->dev, qp->ib.pd, w->inv_rkey, false);
	if (err)
		rxe_dbg_qp(qp, "%s of key 0x%x refused\n",
			   w->opcode == IB_WR_REG_MR ? "REG_MR" : "LOCAL_INV",
			   w->opcode == IB_WR_REG_MR ? w->rkey : w->inv_rkey);
	return err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
}

/* Transmit as much as the window, the read/atomic limit and fences allow. */
void rxe_requester(struct rxe_qp *qp)
{
	int budget = 64;

	while (budget-- > 0 && !qp->rnr_wait) {
		u32 prod = smp_load_acquire(&qp->sq.buf->producer_index) & qp->sq.mask;
		struct rxe_swqe *w;

		if (qp->req_idx == qp->sq_fetched) {
			if (prod == qp->sq_fetched)
				break;
			rxe_fetch_swqe(qp, qp->sq_fetched);
			qp->sq_fetched = (qp->sq_fetched + 1) & qp->sq.mask;
		}
		w = rxe_swqe(qp, qp->req_idx);
		if (w->bad_status) {
			/* Completions are in order: wait until it is the oldest. */
			if (qp->req_idx == qp->sq.index) {
				rxe_complete_swqe(qp, w, w->bad_status);
				rxe_qp_error(qp);
			}
			break;
		}
		if (qp->state == IB_QPS_SQD && w->state == RXE_WQE_PENDING)
			break;
		/*
		 * A local operation runs once every earlier WQE has completed, as if fenced
		 * (IBA's local invalidate fence, always): no earlier READ response lands in an
		 * MR it invalidated, no earlier retransmission reads one, and a go-back-N rewind
		 * (which restarts at the oldest uncompleted WQE) never runs it twice.
		 */
		if (rxe_is_local_op(w->opcode)) {
			enum ib_wc_status st;

			if (qp->req_idx != qp->sq.index)
				break;
			st = rxe_local_op(qp, w);
			rxe_complete_swqe(qp, w, st);
			if (st != IB_WC_SUCCESS) {
				rxe_qp_error(qp);
				break;
			}
			continue;
		}
		if (w->state == RXE_WQE_PENDING) {
			if (qp->ib.qp_type == IB_QPT_RC) {
				u32 outst = rxe_rd_atomic_outstanding(qp);

				if ((w->flags & IB_SEND_FENCE) && outst)
					break;
				if (rxe_is_rd_atomic(w->opcode) &&
				    outst >= max_t(u32, qp->attr.max_rd_atomic, 1))
					break;
				/*
				 * A placement counts a unit of the budget per 256 KiB besides its
				 * own: a run copies at most ~16 MiB, and yields nowhere while it
				 * holds the QP's lock (a peer's placement would find it busy).
				 */
				if (rxe_place(qp, w, outst)) {
					budget -= w->length >> 18;
					continue;
				}
			}
			w->first_psn = qp->req_psn;
			w->last_psn = rxe_psn_add(qp->req_psn, rxe_npkts(qp, w) - 1);
			w->sent = 0;
			/* A retried READ asks only for the responses still missing. */
			if (w->opcode != IB_WR_RDMA_READ || !w->rx_pkts) {
				w->cur_sge = 0;
				w->sge_off = 0;
				w->rx_off = 0;
				w->rx_pkts = 0;
			}
			w->state = RXE_WQE_SENDING;
		}
		if (qp->ib.qp_type == IB_QPT_RC && rxe_window_full(qp, qp->req_psn))
			break;
		if (rxe_send_next(qp, w))
			continue;	/* bad_status set: handled above */
		if (w->state == RXE_WQE_SENT) {
			if (qp->ib.qp_type != IB_QPT_RC) {
				/* Unreliable (UD, UC): done once it is on the wire. */
				rxe_complete_swqe(qp, w, IB_WC_SUCCESS);
			} else {
				qp->req_idx = (qp->req_idx + 1) & qp->sq.mask;
			}
		}
		if (qp->ib.qp_type == IB_QPT_RC && !timer_pending(&qp->retry_timer))
			rxe_arm_retry(qp);
	}
	if (budget < 0)
		rxe_qp_again(qp);
}

/*
 * Error state: every WQE still queued completes with a flush error, at most a budget of them
 * per call. Returns true when some are left (the worker runs again after yielding).
 */
bool rxe_flush(struct rxe_qp *qp)
{
	u32 prod = smp_load_acquire(&qp->sq.buf->producer_index) & qp->sq.mask;
	struct ib_uverbs_wc wc = {};
	int budget = 256;

	rxe_timer_stop(&qp->retry_timer);
	while (qp->sq.index != prod) {
		if (budget-- <= 0)
			return true;
		struct rxe_swqe *w = rxe_swqe(qp, qp->sq.index);

		if (qp->sq.index == qp->sq_fetched) {
			rxe_fetch_swqe(qp, qp->sq_fetched);
			qp->sq_fetched = (qp->sq_fetched + 1) & qp->sq.mask;
		}
		if (qp->req_idx == qp->sq.index)
			qp->req_idx = (qp->req_idx + 1) & qp->sq.mask;
		w->flags |= IB_SEND_SIGNALED;
		rxe_complete_swqe(qp, w, IB_WC_WR_FLUSH_ERR);
	}
	qp->req_idx = qp->sq_fetched = qp->sq.index;

	wc.status = IB_WC_WR_FLUSH_ERR;
	wc.opcode = IB_WC_RECV;
	wc.qp_num = qp->ib.qp_num;
	if (qp->rwqe_valid) {
		wc.wr_id = qp->rwqe.wr_id;
		rxe_cq_post(qp->rcq ? qp->rcq : qp->scq, &wc, qp, false);
		qp->rwqe_valid = false;
	}
	if (!qp->srq && qp->rcq) {
		while (!rxe_fetch_rwqe(qp, &qp->rwqe)) {
			wc.wr_id = qp->rwqe.wr_id;
			rxe_cq_post(qp->rcq, &wc, qp, false);
			if (budget-- <= 0)
				return true;
		}
	}
	/*
	 * A QP on an SRQ (the IBA's Last WQE Reached event): in the error state it takes no more
	 * receive WQEs from the SRQ (a run drops every packet), and the one it had begun to fill
	 * has just been flushed; say so once, so its consumer may destroy it without losing an
	 * SRQ completion (kernel ULPs draining an SRQ QP wait for this event).
	 */
	if (qp->srq && !qp->last_wqe_raised) {
		qp->last_wqe_raised = true;
		set_bit(RXE_EV_QP_LAST_WQE, &qp->events);
	}
	skb_queue_purge(&qp->rxq);
	return false;
}
