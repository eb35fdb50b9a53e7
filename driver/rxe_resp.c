// SPDX-License-Identifier: GPL-2.0
/* rxe_resp.c - responder: execute incoming requests into receive WQEs and MRs, answer them. */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include "rxe.h"

/* Forget a partly received message and the responder resources (QP reset or destroy). */
void rxe_resp_reset(struct rxe_qp *qp)
{
	rxe_read_stop(qp);
	qp->w_resid = 0;
	qp->rwqe_valid = false;
	qp->recv_off = 0;
	qp->uc_msg = 0;
	qp->ack_owed = false;
	if (qp->res)
		memset(qp->res, 0, qp->nres * sizeof(*qp->res));
	qp->res_next = 0;
}

static void rxe_ack_send(struct rxe_qp *qp, u8 syn, u32 psn, u32 msn)
{
	struct sk_buff *skb;
	struct rxe_aeth *aeth;

	skb = rxe_pkt_alloc(qp->dev, &qp->av, IB_OPCODE_RC_ACKNOWLEDGE, 0);
	if (!skb)
		return;
	rxe_bth_init(skb, IB_OPCODE_RC_ACKNOWLEDGE, false, qp->attr.dest_qp_num, false, psn, 0);
	aeth = rxe_ext(skb, RXE_EXT_AETH);
	aeth->smsn = cpu_to_be32((u32)syn << 24 | (msn & 0xffffff));
	rxe_pkt_send(qp, &qp->av, skb);
}

/*
 * ACK coalescing. An ACK acknowledges every request PSN up to its own (IBA 9.7.5.1.1), so
 * the ACK requests of SENDs and WRITEs a run takes one after another are answered by one
 * ACK of the newest, sent when the run ends (rxe_qp_run()), before any other response (a
 * NAK, an atomic ACK, a READ response: responses leave in PSN order), or once
 * RXE_ACK_COALESCE requests are owed. A run from the wire takes a whole receive batch
 * (rxe_qp_rx_batch()), so a stream of small messages costs one ACK per batch, not per
 * message. Called with qp->lock held, as everything here.
 */
void rxe_ack_later(struct rxe_qp *qp, u32 psn)
{
	if (qp->ack_owed)
		rxe_counter_inc(qp->dev, RXE_CNT_ACKS_COALESCED);
	else
		qp->ack_reqs = 0;
	qp->ack_owed = true;
	qp->ack_psn = psn;
	qp->ack_msn = qp->msn;
	if (++qp->ack_reqs >= RXE_ACK_COALESCE)
		rxe_resp_ack_flush(qp);
}

/* Send the ACK owed now (the end of a run, or a response about to follow it). */
void rxe_resp_ack_flush(struct rxe_qp *qp)
{
	if (!qp->ack_owed)
		return;
	qp->ack_owed = false;
	rxe_ack_send(qp, AETH_ACK_UNLIMITED, qp->ack_psn, qp->ack_msn);
}

static void rxe_send_ack(struct rxe_qp *qp, u8 syn, u32 psn)
{
	rxe_resp_ack_flush(qp);
	rxe_ack_send(qp, syn, psn, qp->msn);
}

/* A fatal request error: NAK it and take the QP to the error state. */
void rxe_resp_fail(struct rxe_qp *qp, u8 nak, u32 psn)
{
	rxe_send_ack(qp, nak, psn);
	rxe_qp_error(qp);
}

/* Complete the receive WQE being filled (qp->rwqe): the packet path's and direct placement's. */
static void rxe_recv_done(struct rxe_qp *qp, enum ib_wc_status status, u32 opcode, u32 byte_len,
			  u32 src_qp, u32 flags, __be32 imm, u32 inv_rkey, bool se)
{
	struct ib_uverbs_wc wc = {};

	wc.wr_id = qp->rwqe.wr_id;
	wc.status = status;
	wc.opcode = opcode;
	wc.byte_len = byte_len;
	wc.qp_num = qp->ib.qp_num;
	wc.src_qp = src_qp;
	wc.wc_flags = flags;
	if (flags & IB_WC_WITH_IMM)
		wc.ex.imm_data = imm;
	else if (flags & IB_WC_WITH_INVALIDATE)
		wc.ex.invalidate_rkey = inv_rkey;
	qp->rwqe_valid = false;
	if (status == IB_WC_SUCCESS && opcode == IB_WC_RECV)
		rxe_counter_inc(qp->dev, RXE_CNT_RDMA_RECV);
	rxe_cq_post(qp->rcq ? qp->rcq : qp->scq, &wc, qp, se);
}

static void rxe_post_recv_wc(struct rxe_qp *qp, enum ib_wc_status status, u32 opcode,
			     u32 byte_len, struct sk_buff *skb, u32 src_qp, u32 flags)
{
	u32 mask = skb ? rxe_opinfo[rxe_pkt(skb)->opcode].mask : 0;
	__be32 imm = 0;
	u32 inv = 0;

	if (status == IB_WC_SUCCESS && (mask & RXE_IMMDT)) {
		imm = *(__be32 *)rxe_ext(skb, RXE_EXT_IMMDT);
		flags |= IB_WC_WITH_IMM;
	}
	/* Only passed by rxe_resp_send() once the invalidation has happened. */
	if (status == IB_WC_SUCCESS && (flags & IB_WC_WITH_INVALIDATE))
		inv = be32_to_cpu(*(__be32 *)rxe_ext(skb, RXE_EXT_IETH));
	rxe_recv_done(qp, status, opcode, byte_len, src_qp, flags, imm, inv,
		      skb && rxe_pkt(skb)->se);
}

/* Returns false when the packet could not be taken (RNR or error), true when consumed. */
static bool rxe_resp_send(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	u32 mask = rxe_opinfo[pkt->opcode].mask;
	int err;

	if (mask & RXE_FIRST) {
		if (!qp->rwqe_valid) {
			if (rxe_fetch_rwqe(qp, &qp->rwqe)) {
				rxe_counter_inc(qp->dev, RXE_CNT_SND_RNR);
				rxe_send_ack(qp, AETH_RNR_NAK | (qp->attr.min_rnr_timer & 0x1f),
					     pkt->psn);
				qp->nak_sent = true;
				return false;
			}
			qp->rwqe_valid = true;
		}
		qp->recv_off = 0;
		qp->w_cur_sge = 0;
		qp->w_sge_off = 0;
	}
	if (pkt->paylen > qp->rwqe.length - qp->recv_off) {
		rxe_post_recv_wc(qp, IB_WC_LOC_LEN_ERR, IB_WC_RECV, 0, NULL, 0, 0);
		rxe_resp_fail(qp, AETH_NAK_INVALID_REQ, pkt->psn);
		return false;
	}
	err = rxe_pkt_to_sgl(qp, skb, qp->rwqe.sge, qp->rwqe.num_sge, &qp->w_cur_sge,
			     &qp->w_sge_off);
	if (err) {
		rxe_post_recv_wc(qp, IB_WC_LOC_PROT_ERR, IB_WC_RECV, 0, NULL, 0, 0);
		rxe_resp_fail(qp, AETH_NAK_REM_OP, pkt->psn);
		return false;
	}
	qp->recv_off += pkt->paylen;
	if (mask & RXE_LAST) {
		u32 flags = 0;

		/*
		 * SEND with Invalidate: after the data, before the completion. Only a valid
		 * fast-register MR of this QP's PD, or a valid type 2 window bound to this QP,
		 * can be invalidated; any other key is a remote access error, and the receive
		 * WQE is flushed, never completed as if the invalidation had happened.
		 */
		if (mask & RXE_IETH) {
			u32 key = be32_to_cpu(*(__be32 *)rxe_ext(skb, RXE_EXT_IETH));

			if (rxe_key_is_mw(key) ? rxe_mw_invalidate(qp, key, true) :
			    rxe_mr_invalidate(qp->dev, qp->ib.pd, key, true)) {
				rxe_dbg_qp(qp, "SEND with Invalidate of key 0x%x refused\n", key);
				rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, pkt->psn);
				return false;
			}
			flags = IB_WC_WITH_INVALIDATE;
		}
		rxe_post_recv_wc(qp, IB_WC_SUCCESS, IB_WC_RECV, qp->recv_off, skb,
				 qp->attr.dest_qp_num, flags);
		qp->msn++;
	}
	return true;
}

/*
 * RDMA WRITE: the FIRST (or ONLY) packet checks the whole range; every packet then looks the
 * MR up again for its own bytes, so no MR reference is held between packets.
 */
static bool rxe_resp_write(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	u32 mask = rxe_opinfo[pkt->opcode].mask;
	struct rxe_mr *mr;

	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE)) {
		rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, pkt->psn);
		return false;
	}
	/* Immediate data needs a receive WQE: check before touching anything. */
	if ((mask & RXE_IMMDT) && !qp->rwqe_valid) {
		if (rxe_fetch_rwqe(qp, &qp->rwqe)) {
			rxe_counter_inc(qp->dev, RXE_CNT_SND_RNR);
			rxe_send_ack(qp, AETH_RNR_NAK | (qp->attr.min_rnr_timer & 0x1f), pkt->psn);
			qp->nak_sent = true;
			return false;
		}
		qp->rwqe_valid = true;
	}
	if (mask & RXE_FIRST) {
		struct rxe_reth *reth = rxe_ext(skb, RXE_EXT_RETH);

		qp->w_rkey = be32_to_cpu(reth->rkey);
		qp->w_va = be64_to_cpu(reth->va);
		qp->w_resid = be32_to_cpu(reth->len);
		qp->w_total = qp->w_resid;
		if (!rxe_rkey_ok(qp, qp->w_rkey, IB_ACCESS_REMOTE_WRITE, qp->w_va, qp->w_resid)) {
			qp->w_resid = 0;
			rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, pkt->psn);
			return false;
		}
	}
	if (pkt->paylen > qp->w_resid ||
	    ((mask & RXE_LAST) && pkt->paylen != qp->w_resid)) {
		rxe_resp_fail(qp, AETH_NAK_INVALID_REQ, pkt->psn);
		return false;
	}
	if (pkt->paylen) {
		mr = rxe_rkey_get(qp, qp->w_rkey, IB_ACCESS_REMOTE_WRITE, qp->w_va, pkt->paylen);
		if (!mr || rxe_pkt_to_mr(skb, mr, qp->w_va)) {
			if (mr)
				rxe_mr_put(mr);
			rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, pkt->psn);
			return false;
		}
		rxe_mr_put(mr);
		qp->w_va += pkt->paylen;
		qp->w_resid -= pkt->paylen;
	}
	if (mask & RXE_LAST) {
		if (mask & RXE_IMMDT)
			rxe_post_recv_wc(qp, IB_WC_SUCCESS, IB_WC_RECV_RDMA_WITH_IMM, qp->w_total,
					 skb, qp->attr.dest_qp_num, 0);
		qp->msn++;
	}
	return true;
}

/* UD / GSI receive: one packet, one message, 40 bytes of GRH space first. */
static void rxe_resp_ud(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	struct rxe_deth *deth = rxe_ext(skb, RXE_EXT_DETH);
	u8 grh[40] = {};
	int err;

	if (be32_to_cpu(deth->qkey) != qp->attr.qkey)
		return;
	if (rxe_fetch_rwqe(qp, &qp->rwqe))
		return;		/* no receive posted: UD drops */
	qp->rwqe_valid = true;
	qp->w_cur_sge = 0;
	qp->w_sge_off = 0;
	if ((u64)pkt->paylen + sizeof(grh) > qp->rwqe.length) {
		rxe_post_recv_wc(qp, IB_WC_LOC_LEN_ERR, IB_WC_RECV, 0, NULL, 0, 0);
		return;
	}
	/* IPv6: the header is the GRH; IPv4: it sits in the last 20 bytes of the GRH space. */
	if (ip_hdr(skb)->version == 4)
		memcpy(grh + 20, ip_hdr(skb), sizeof(struct iphdr));
	else
		memcpy(grh, ipv6_hdr(skb), sizeof(grh));
	err = rxe_sgl_copy(qp, qp->rwqe.sge, qp->rwqe.num_sge, &qp->w_cur_sge, &qp->w_sge_off,
			   grh, sizeof(grh), true);
	if (!err)
		err = rxe_pkt_to_sgl(qp, skb, qp->rwqe.sge, qp->rwqe.num_sge, &qp->w_cur_sge,
				     &qp->w_sge_off);
	if (err) {
		rxe_post_recv_wc(qp, IB_WC_LOC_PROT_ERR, IB_WC_RECV, 0, NULL, 0, 0);
		return;
	}
	rxe_post_recv_wc(qp, IB_WC_SUCCESS, IB_WC_RECV, pkt->paylen + sizeof(grh), skb,
			 be32_to_cpu(deth->sqp) & RXE_QPN_MASK, IB_WC_GRH);
}

/*
 * UC SEND packet (its PSN and position already checked). Returns false when the message is to
 * be dropped: no receive WQE posted (UC has no RNR), or more data than it holds; the WQE, if
 * one was taken, stays for the next message. A bad local key in the receive WQE is the
 * responder's own error: the WQE completes with it and the QP goes to the error state.
 */
static bool rxe_uc_send(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	u32 mask = rxe_opinfo[pkt->opcode].mask;

	if (mask & RXE_FIRST) {
		if (!qp->rwqe_valid) {
			if (rxe_fetch_rwqe(qp, &qp->rwqe))
				return false;
			qp->rwqe_valid = true;
		}
		qp->recv_off = 0;
		qp->w_cur_sge = 0;
		qp->w_sge_off = 0;
	}
	if (pkt->paylen > qp->rwqe.length - qp->recv_off)
		return false;
	if (rxe_pkt_to_sgl(qp, skb, qp->rwqe.sge, qp->rwqe.num_sge, &qp->w_cur_sge,
			   &qp->w_sge_off)) {
		rxe_post_recv_wc(qp, IB_WC_LOC_PROT_ERR, IB_WC_RECV, 0, NULL, 0, 0);
		rxe_qp_error(qp);
		return false;
	}
	qp->recv_off += pkt->paylen;
	if (mask & RXE_LAST)
		rxe_post_recv_wc(qp, IB_WC_SUCCESS, IB_WC_RECV, qp->recv_off, skb,
				 qp->attr.dest_qp_num, 0);
	return true;
}

/*
 * UC RDMA WRITE packet. Returns false when the message is to be dropped: no remote write
 * access on the QP, an rkey that does not give it, a length that does not add up, or (with
 * immediate data) no receive WQE. As for RC, the MR is looked up again for every packet.
 */
static bool rxe_uc_write(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	u32 mask = rxe_opinfo[pkt->opcode].mask;
	struct rxe_mr *mr;

	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE))
		return false;
	if (mask & RXE_FIRST) {
		struct rxe_reth *reth = rxe_ext(skb, RXE_EXT_RETH);

		qp->w_rkey = be32_to_cpu(reth->rkey);
		qp->w_va = be64_to_cpu(reth->va);
		qp->w_resid = be32_to_cpu(reth->len);
		qp->w_total = qp->w_resid;
		if (!rxe_rkey_ok(qp, qp->w_rkey, IB_ACCESS_REMOTE_WRITE, qp->w_va, qp->w_resid))
			return false;
	}
	if (pkt->paylen > qp->w_resid || ((mask & RXE_LAST) && pkt->paylen != qp->w_resid))
		return false;
	if ((mask & RXE_IMMDT) && !qp->rwqe_valid) {
		if (rxe_fetch_rwqe(qp, &qp->rwqe))
			return false;
		qp->rwqe_valid = true;
	}
	if (pkt->paylen) {
		mr = rxe_rkey_get(qp, qp->w_rkey, IB_ACCESS_REMOTE_WRITE, qp->w_va, pkt->paylen);
		if (!mr)
			return false;
		if (rxe_pkt_to_mr(skb, mr, qp->w_va)) {
			rxe_mr_put(mr);
			return false;
		}
		rxe_mr_put(mr);
		qp->w_va += pkt->paylen;
		qp->w_resid -= pkt->paylen;
	}
	if ((mask & RXE_LAST) && (mask & RXE_IMMDT))
		rxe_post_recv_wc(qp, IB_WC_SUCCESS, IB_WC_RECV_RDMA_WITH_IMM, qp->w_total, skb,
				 qp->attr.dest_qp_num, 0);
	return true;
}

/*
 * UC responder (the IBA's unreliable connected service): nothing is acknowledged, NAKed or
 * retried. A FIRST or ONLY packet starts a message whatever its PSN (the expected PSN follows
 * it); a MIDDLE or LAST packet must carry the next PSN of the message in progress, else that
 * message is dropped silently (a lost or reordered packet) and the responder waits for the
 * next FIRST or ONLY. Remote errors drop the message too; the QP stays where it is.
 */
static void rxe_resp_uc(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	u32 mask = rxe_opinfo[pkt->opcode].mask;
	u32 kind = mask & (RXE_SEND | RXE_WRITE);
	bool ok;

	if (mask & RXE_FIRST) {
		qp->uc_msg = 0;		/* a message in progress is lost */
		qp->w_resid = 0;
	} else if (qp->uc_msg != kind || pkt->psn != qp->resp_psn) {
		rxe_dbg_qp(qp, "UC psn %u (expected %u) out of a message: dropped\n", pkt->psn,
			   qp->resp_psn);
		goto drop;
	}
	qp->resp_psn = rxe_psn_add(pkt->psn, 1);
	if (!(mask & RXE_LAST) && pkt->paylen != qp->mtu)
		goto drop;
	ok = kind == RXE_SEND ? rxe_uc_send(qp, skb) : rxe_uc_write(qp, skb);
	if (!ok)
		goto drop;
	qp->uc_msg = (mask & RXE_LAST) ? 0 : kind;
	if (mask & RXE_LAST)
		qp->msn++;
	return;
drop:
	qp->uc_msg = 0;
	qp->w_resid = 0;
}

/* Handle one request packet addressed to this QP. Consumes the skb. */
void rxe_responder(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	u32 mask = rxe_opinfo[pkt->opcode].mask;
	bool in_send = qp->rwqe_valid && qp->recv_off, in_write = qp->w_resid != 0;
	bool ok;
	int diff;

	if (rxe_qp_is_ud(qp)) {
		rxe_resp_ud(qp, skb);
		goto out;
	}
	if (qp->ib.qp_type == IB_QPT_UC) {
		rxe_resp_uc(qp, skb);
		goto out;
	}
	diff = rxe_psn_diff(pkt->psn, qp->resp_psn);
	if (diff > 0) {
		rxe_dbg_qp(qp, "request psn %u ahead of %u\n", pkt->psn, qp->resp_psn);
		rxe_counter_inc(qp->dev, RXE_CNT_OUT_OF_SEQ_REQ);
		if (!qp->nak_sent) {
			rxe_send_ack(qp, AETH_NAK_PSN_SEQ, qp->resp_psn);
			qp->nak_sent = true;
		}
		goto out;
	}
	if (diff < 0) {
		rxe_dbg_qp(qp, "duplicate request psn %u (expected %u)\n", pkt->psn, qp->resp_psn);
		rxe_counter_inc(qp->dev, RXE_CNT_DUP_REQ);
		rxe_resp_duplicate(qp, skb);
		goto out;
	}

	/* Packets of one message must come in first/middle/last order. */
	if (mask & RXE_FIRST) {
		if (in_write || in_send) {
			rxe_resp_fail(qp, AETH_NAK_INVALID_REQ, pkt->psn);
			goto out;
		}
	} else if (((mask & RXE_SEND) && !in_send) || ((mask & RXE_WRITE) && !in_write)) {
		rxe_resp_fail(qp, AETH_NAK_INVALID_REQ, pkt->psn);
		goto out;
	}
	/* Every packet of a message but the last carries exactly one path MTU. */
	if ((mask & (RXE_SEND | RXE_WRITE)) && !(mask & RXE_LAST) && pkt->paylen != qp->mtu) {
		rxe_resp_fail(qp, AETH_NAK_INVALID_REQ, pkt->psn);
		goto out;
	}
	/* READ and atomic requests need responder resources (max_dest_rd_atomic). */
	if ((mask & (RXE_READ | RXE_ATOMIC)) && !qp->nres) {
		rxe_resp_fail(qp, AETH_NAK_INVALID_REQ, pkt->psn);
		goto out;
	}

	if (mask & RXE_SEND)
		ok = rxe_resp_send(qp, skb);
	else if (mask & RXE_WRITE)
		ok = rxe_resp_write(qp, skb);
	else if (mask & RXE_READ)
		ok = rxe_resp_read(qp, skb);
	else
		ok = rxe_resp_atomic(qp, skb);
	if (!ok)
		goto out;
	qp->nak_sent = false;
	if (mask & (RXE_SEND | RXE_WRITE)) {
		qp->resp_psn = rxe_psn_add(qp->resp_psn, 1);
		if (pkt->ackreq)
			rxe_ack_later(qp, pkt->psn);
	}
out:
	kfree_skb(skb);
}

/*
 * Loopback direct placement, the responder's half (rxe_req.c has the conditions and the
 * requester's half): carry out send WQE @w of the local QP @req, whose @npkts request packets
 * would arrive here at qp->resp_psn, as a copy between the two QPs' memory, with the checks
 * the packets would meet here (receive WQE and its length, QP access flags, rkey, responder
 * resources) and the state they would leave (data, responder resource, MSN, expected PSN,
 * receive completion). Both QPs' locks are held. Returns 0 when done, or -EAGAIN when the
 * request is to go as packets instead -- no receive WQE (the packet path sends the RNR NAK),
 * every error (it NAKs and fails the side at fault) -- having changed nothing the packets
 * would not do again the same way (a receive WQE taken stays this QP's next; bytes copied
 * before a fault are the ones its packets write first). An atomic is checked whole first: it
 * cannot be done twice.
 */
int rxe_resp_place(struct rxe_qp *qp, struct rxe_qp *req, const struct rxe_swqe *w, u32 npkts)
{
	bool imm = w->opcode == IB_WR_SEND_WITH_IMM || w->opcode == IB_WR_RDMA_WRITE_WITH_IMM;
	bool se = w->flags & IB_SEND_SOLICITED;
	struct rxe_mr *mr = NULL, *dst;
	struct rxe_resp_res *res;
	int err = -EAGAIN;
	u64 orig;

	switch (w->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		if (!qp->rwqe_valid) {
			if (rxe_fetch_rwqe(qp, &qp->rwqe))
				return -EAGAIN;
			qp->rwqe_valid = true;
			qp->recv_off = 0;	/* taken, not begun: a FIRST packet may start it */
		}
		if (w->length > qp->rwqe.length ||
		    rxe_swqe_to_sgl(req, w, qp, qp->rwqe.sge, qp->rwqe.num_sge))
			return -EAGAIN;
		rxe_recv_done(qp, IB_WC_SUCCESS, IB_WC_RECV, w->length, qp->attr.dest_qp_num,
			      imm ? IB_WC_WITH_IMM : 0, w->imm, 0, se);
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE))
			return -EAGAIN;
		if (w->length) {
			mr = rxe_rkey_get(qp, w->rkey, IB_ACCESS_REMOTE_WRITE, w->raddr, w->length);
			if (!mr)
				return -EAGAIN;
		}
		if (imm && !qp->rwqe_valid) {
			if (rxe_fetch_rwqe(qp, &qp->rwqe))
				goto out;
			qp->rwqe_valid = true;
			qp->recv_off = 0;
		}
		if (mr && rxe_swqe_to_mr(req, w, mr, w->raddr))
			goto out;
		if (imm)
			rxe_recv_done(qp, IB_WC_SUCCESS, IB_WC_RECV_RDMA_WITH_IMM, w->length,
				      qp->attr.dest_qp_num, IB_WC_WITH_IMM, w->imm, 0, se);
		break;
	case IB_WR_RDMA_READ:
		if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_READ) || !qp->nres)
			return -EAGAIN;
		if (w->length) {
			mr = rxe_rkey_get(qp, w->rkey, IB_ACCESS_REMOTE_READ, w->raddr, w->length);
			if (!mr || rxe_mr_to_sgl(mr, w->raddr, w->length, req, w->sge, w->num_sge))
				goto out;
		}
		res = rxe_res_new(qp, RXE_READ, qp->resp_psn, npkts);
		res->rkey = w->rkey;
		res->va = w->raddr;
		res->len = w->length;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_ATOMIC) || !qp->nres ||
		    w->num_sge != 1 || w->sge[0].length != sizeof(u64))
			return -EAGAIN;
		mr = rxe_rkey_get(qp, w->rkey, IB_ACCESS_REMOTE_ATOMIC, w->raddr, sizeof(u64));
		if (!mr)
			return -EAGAIN;
		/* where the old value goes, checked before the atomic is done */
		dst = rxe_mr_get(req->dev, req->ib.pd, w->sge[0].lkey, false, IB_ACCESS_LOCAL_WRITE,
				 w->sge[0].addr, sizeof(u64));
		if (!dst)
			goto out;
		if (rxe_atomic_op(mr, w->raddr, w->opcode == IB_WR_ATOMIC_CMP_AND_SWP, w->compare,
				  w->swap_add, &orig)) {
			rxe_mr_put(dst);
			goto out;
		}
		rxe_mr_copy(dst, w->sge[0].addr, &orig, sizeof(orig), true);
		rxe_mr_put(dst);
		res = rxe_res_new(qp, RXE_ATOMIC, qp->resp_psn, 1);
		res->rkey = w->rkey;
		res->va = w->raddr;
		res->len = sizeof(u64);
		res->orig = orig;
		break;
	default:
		return -EAGAIN;
	}
	err = 0;
	qp->msn++;
	qp->nak_sent = false;
	qp->resp_psn = rxe_psn_add(qp->resp_psn, npkts);
out:
	if (mr)
		rxe_mr_put(mr);
	return err;
}
