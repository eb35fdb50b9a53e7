// SPDX-License-Identifier: GPL-2.0
/* rxe_req_pkt.c - requester: build and send the next packet of a send WQE. */

#include "rxe.h"

static u8 rxe_rc_opcode(struct rxe_swqe *w, bool first, bool last)
{
	bool imm = w->opcode == IB_WR_SEND_WITH_IMM || w->opcode == IB_WR_RDMA_WRITE_WITH_IMM;

	switch (w->opcode) {
	case IB_WR_RDMA_READ:
		return IB_OPCODE_RC_RDMA_READ_REQUEST;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_OPCODE_RC_COMPARE_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_OPCODE_RC_FETCH_ADD;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (first && last)
			return imm ? IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE :
				     IB_OPCODE_RC_RDMA_WRITE_ONLY;
		if (first)
			return IB_OPCODE_RC_RDMA_WRITE_FIRST;
		if (last)
			return imm ? IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE :
				     IB_OPCODE_RC_RDMA_WRITE_LAST;
		return IB_OPCODE_RC_RDMA_WRITE_MIDDLE;
	default:
		if (first && last)
			return w->opcode == IB_WR_SEND_WITH_INV ?
				IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE :
			       imm ? IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE : IB_OPCODE_RC_SEND_ONLY;
		if (first)
			return IB_OPCODE_RC_SEND_FIRST;
		if (last)
			return w->opcode == IB_WR_SEND_WITH_INV ?
				IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE :
			       imm ? IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE : IB_OPCODE_RC_SEND_LAST;
		return IB_OPCODE_RC_SEND_MIDDLE;
	}
}

static u8 rxe_req_opcode(struct rxe_qp *qp, struct rxe_swqe *w, bool first, bool last)
{
	bool imm = w->opcode == IB_WR_SEND_WITH_IMM;

	if (rxe_qp_is_ud(qp))
		return imm ? IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE : IB_OPCODE_UD_SEND_ONLY;
	/* UC's SEND and WRITE opcodes are RC's in the UC transport (IBA 9.2, table 38) */
	if (qp->ib.qp_type == IB_QPT_UC)
		return (rxe_rc_opcode(w, first, last) & 0x1f) | IB_OPCODE_UC;
	return rxe_rc_opcode(w, first, last);
}

/*
 * A user RC QP's packets to another host carry their payload in the MR's pages (page fragments
 * the skb references), not in a copy: the ICRC is computed over the pages as the packet goes out,
 * and the NIC reads them from there. Only RC: its WQE completes when the peer acknowledges the
 * bytes, so they are not the user's to change before they are sent (UC and UD complete at the
 * send). Only on a netdev with scatter/gather (NETIF_F_SG) and, for IPv6, checksum offload: for
 * one without, the stack would linearize every such packet (validate_xmit_skb(), or
 * skb_checksum_help() for the shared fragments of an IPv6 packet: a second allocation, zeroed,
 * and a copy of the fragments), which costs more than the copy it saves. tx_paged=0 copies
 * always.
 */
static bool rxe_tx_paged = true;
module_param_named(tx_paged, rxe_tx_paged, bool, 0644);
MODULE_PARM_DESC(tx_paged,
		 "send user RC payloads from the MR's pages where the netdev has scatter/gather (default: on)");

/* Would @ndev send a paged packet to @av as it is, without a linear copy of its own? */
static bool rxe_ndev_takes_pages(const struct net_device *ndev, const struct rxe_addr *av)
{
	netdev_features_t f = READ_ONCE(ndev->features);

	if (!(f & NETIF_F_SG))
		return false;
	return av->family != AF_INET6 || (f & (NETIF_F_HW_CSUM | NETIF_F_IPV6_CSUM));
}

/* @w's next @paylen bytes as page fragments of a new packet, or NULL: then copy them. */
static struct sk_buff *rxe_send_paged(struct rxe_qp *qp, struct rxe_swqe *w,
				      const struct rxe_addr *av, u8 opcode, u32 paylen)
{
	u32 cur_sge = w->cur_sge, sge_off = w->sge_off;
	struct sk_buff *skb;

	if (!READ_ONCE(rxe_tx_paged) || !paylen || w->inl || !qp->user ||
	    qp->ib.qp_type != IB_QPT_RC || !rxe_ndev_takes_pages(qp->dev->ndev, av) ||
	    rxe_qp_dest_local(qp))
		return NULL;
	skb = rxe_pkt_alloc_paged(qp->dev, av, opcode, paylen);
	if (!skb)
		return NULL;
	if (rxe_sgl_to_frags(qp, w->sge, w->num_sge, &cur_sge, &sge_off, skb, paylen,
			     MAX_SKB_FRAGS - 1) || rxe_pkt_add_tail(skb, paylen)) {
		kfree_skb(skb);
		return NULL;
	}
	w->cur_sge = cur_sge;
	w->sge_off = sge_off;
	rxe_counter_inc(qp->dev, RXE_CNT_SENT_PAGED);
	return skb;
}

/*
 * Build and send the next packet of @w. Returns 0, or a negative error when the WQE's
 * local memory is bad (w->bad_status is then set).
 */
int rxe_send_next(struct rxe_qp *qp, struct rxe_swqe *w)
{
	bool rd_atomic = rxe_is_rd_atomic(w->opcode);
	bool ud = rxe_qp_is_ud(qp);
	u32 paylen = rd_atomic ? 0 : min(qp->mtu, w->length - w->sent);
	bool first = w->sent == 0, last = rd_atomic || w->sent + paylen == w->length;
	u8 opcode = rxe_req_opcode(qp, w, first, last);
	const struct rxe_addr *av = ud ? &w->av : &qp->av;
	u32 mask = rxe_opinfo[opcode].mask;
	struct sk_buff *skb;
	bool ackreq;
	u32 dqpn;

	skb = rxe_send_paged(qp, w, av, opcode, paylen);
	if (!skb) {
		int err = 0;

		skb = rxe_pkt_alloc(qp->dev, av, opcode, paylen);
		if (!skb)
			return -ENOMEM;
		if (paylen && w->inl)
			memcpy(rxe_payload(skb), w->data + w->sent, paylen);
		else if (paylen)
			err = rxe_sgl_copy(qp, w->sge, w->num_sge, &w->cur_sge, &w->sge_off,
					   rxe_payload(skb), paylen, false);
		if (err) {
			kfree_skb(skb);
			w->bad_status = IB_WC_LOC_PROT_ERR;
			return err;
		}
	}
	if (ud) {
		struct rxe_deth *deth = rxe_ext(skb, RXE_EXT_DETH);
		u32 qkey = (w->remote_qkey & 0x80000000) ? qp->attr.qkey : w->remote_qkey;

		deth->qkey = cpu_to_be32(qkey);
		deth->sqp = cpu_to_be32(qp->ib.qp_num & RXE_QPN_MASK);
		dqpn = w->remote_qpn;
		ackreq = false;
	} else if (qp->ib.qp_type == IB_QPT_UC) {
		dqpn = qp->attr.dest_qp_num;
		ackreq = false;		/* UC: nothing is acknowledged */
	} else {
		dqpn = qp->attr.dest_qp_num;
		/*
		 * The packet that fills the window asks too: the responder acknowledges a
		 * duplicate only when asked, and a window cut below RXE_ACKREQ_EVERY after a
		 * loss otherwise stops on packets nobody acknowledges until the timer rewinds
		 * them again, every time (readgap pair test: RETRY_EXC_ERR after two losses).
		 */
		ackreq = last || ++qp->pkts_since_ackreq >= RXE_ACKREQ_EVERY ||
			 rxe_window_full(qp, rxe_psn_add(qp->req_psn, 1));
		if (ackreq)
			qp->pkts_since_ackreq = 0;
	}
	if (mask & RXE_RETH) {
		struct rxe_reth *reth = rxe_ext(skb, RXE_EXT_RETH);

		reth->va = cpu_to_be64(w->raddr + w->rx_off);
		reth->rkey = cpu_to_be32(w->rkey);
		reth->len = cpu_to_be32(w->length - w->rx_off);
	}
	if (mask & RXE_ATMETH) {
		struct rxe_atmeth *a = rxe_ext(skb, RXE_EXT_ATMETH);

		a->va = cpu_to_be64(w->raddr);
		a->rkey = cpu_to_be32(w->rkey);
		a->swap_add = cpu_to_be64(w->swap_add);
		a->compare = cpu_to_be64(w->compare);
	}
	if (mask & RXE_IMMDT)
		*(__be32 *)rxe_ext(skb, RXE_EXT_IMMDT) = w->imm;
	if (mask & RXE_IETH)
		*(__be32 *)rxe_ext(skb, RXE_EXT_IETH) = cpu_to_be32(w->inv_rkey);
	rxe_bth_init(skb, opcode, last && (w->flags & IB_SEND_SOLICITED), dqpn, ackreq,
		     rxe_psn_add(qp->req_psn, w->rx_pkts), paylen);

	w->sent += paylen;
	qp->req_psn = rxe_psn_add(qp->req_psn, rd_atomic ? rxe_npkts(qp, w) : 1);
	if (rxe_psn_diff(qp->req_psn, qp->sent_psn) > 0)
		qp->sent_psn = qp->req_psn;
	if (last) {
		w->state = RXE_WQE_SENT;
		w->sent_once = true;
	}
	rxe_pkt_send(qp, av, skb);
	return 0;
}
