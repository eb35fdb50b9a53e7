// SPDX-License-Identifier: GPL-2.0
/* rxe_resp.c - responder: execute incoming requests into receive WQEs and MRs, answer them. */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include "rxe.h"

/* Forget a partly received message (QP reset or destroy). */
static void rxe_read_stop(struct rxe_qp *qp);

void rxe_resp_reset(struct rxe_qp *qp)
{
	rxe_read_stop(qp);
	if (qp->w_mr) {
		rxe_mr_put(qp->w_mr);
		qp->w_mr = NULL;
	}
	qp->w_resid = 0;
	qp->rwqe_valid = false;
	qp->recv_off = 0;
}

static void rxe_send_ack(struct rxe_qp *qp, u8 syn, u32 psn)
{
	struct sk_buff *skb;
	struct rxe_aeth *aeth;

	skb = rxe_pkt_alloc(qp->dev, &qp->av, IB_OPCODE_RC_ACKNOWLEDGE, 0);
	if (!skb)
		return;
	rxe_bth_init(skb, IB_OPCODE_RC_ACKNOWLEDGE, false, qp->attr.dest_qp_num, false, psn, 0);
	aeth = rxe_ext(skb, RXE_EXT_AETH);
	aeth->smsn = cpu_to_be32((u32)syn << 24 | (qp->msn & 0xffffff));
	rxe_pkt_send(qp->dev, &qp->av, qp->src_port, skb);
}

/* A fatal request error: NAK it and take the QP to the error state. */
static void rxe_resp_fail(struct rxe_qp *qp, u8 nak, u32 psn)
{
	rxe_send_ack(qp, nak, psn);
	rxe_qp_error(qp);
}

static void rxe_post_recv_wc(struct rxe_qp *qp, enum ib_wc_status status, u32 opcode,
			     u32 byte_len, struct sk_buff *skb, u32 src_qp, u32 flags)
{
	struct ib_uverbs_wc wc = {};
	u32 mask = skb ? rxe_opinfo[rxe_pkt(skb)->opcode].mask : 0;

	wc.wr_id = qp->rwqe.wr_id;
	wc.status = status;
	wc.opcode = opcode;
	wc.byte_len = byte_len;
	wc.qp_num = qp->ib.qp_num;
	wc.src_qp = src_qp;
	wc.wc_flags = flags;
	if (status == IB_WC_SUCCESS && (mask & RXE_IMMDT)) {
		wc.ex.imm_data = *(__be32 *)rxe_ext(skb, RXE_EXT_IMMDT);
		wc.wc_flags |= IB_WC_WITH_IMM;
	} else if (status == IB_WC_SUCCESS && (mask & RXE_IETH)) {
		wc.ex.invalidate_rkey = be32_to_cpu(*(__be32 *)rxe_ext(skb, RXE_EXT_IETH));
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	qp->rwqe_valid = false;
	rxe_cq_post(qp->rcq ? qp->rcq : qp->scq, &wc, qp,
		    skb && rxe_pkt(skb)->se);
}

static void rxe_read_stop(struct rxe_qp *qp)
{
	if (qp->rd_mr)
		rxe_mr_put(qp->rd_mr);
	qp->rd_mr = NULL;
	qp->rd_active = false;
}

/*
 * Send the next burst of READ response packets. Responses are paced so one large READ
 * cannot queue millions of packets at once; the worker calls back until rd_active clears.
 */
void rxe_read_continue(struct rxe_qp *qp)
{
	int burst = RXE_RD_BURST;

	if (qp->state == IB_QPS_ERR) {
		rxe_read_stop(qp);
		return;
	}
	while (qp->rd_pkt < qp->rd_npkts && burst-- > 0) {
		u32 off = qp->rd_pkt * qp->mtu;
		u32 n = min(qp->mtu, qp->rd_len - off);
		bool first = qp->rd_pkt == 0, last = qp->rd_pkt == qp->rd_npkts - 1;
		u8 op = first && last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY :
			first ? IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST :
			last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST :
			IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE;
		struct sk_buff *skb = rxe_pkt_alloc(qp->dev, &qp->av, op, n);

		if (!skb)
			break;		/* try again on the next run */
		if (n && rxe_mr_copy(qp->rd_mr, qp->rd_va + off, rxe_payload(skb), n, false)) {
			kfree_skb(skb);
			rxe_read_stop(qp);
			return;
		}
		rxe_bth_init(skb, op, false, qp->attr.dest_qp_num, false,
			     rxe_psn_add(qp->rd_psn, qp->rd_pkt), n);
		if (rxe_opinfo[op].mask & RXE_AETH) {
			struct rxe_aeth *aeth = rxe_ext(skb, RXE_EXT_AETH);

			aeth->smsn = cpu_to_be32((u32)AETH_ACK_UNLIMITED << 24 |
						 (qp->msn & 0xffffff));
		}
		rxe_pkt_send(qp->dev, &qp->av, qp->src_port, skb);
		qp->rd_pkt++;
	}
	if (qp->rd_pkt >= qp->rd_npkts)
		rxe_read_stop(qp);
}

/* Start answering a READ of [va, va + len) at @psn; takes over the reference on @mr. */
static void rxe_read_start(struct rxe_qp *qp, struct rxe_mr *mr, u64 va, u32 len, u32 psn)
{
	rxe_read_stop(qp);
	qp->rd_mr = mr;
	qp->rd_va = va;
	qp->rd_len = len;
	qp->rd_psn = psn;
	qp->rd_pkt = 0;
	qp->rd_npkts = max_t(u32, 1, DIV_ROUND_UP(len, qp->mtu));
	qp->rd_active = true;
	rxe_read_continue(qp);
}

/* Look up and check the target of a READ request; NULL with *nak set when refused. */
static struct rxe_mr *rxe_read_mr(struct rxe_qp *qp, struct sk_buff *skb, u8 *nak)
{
	struct rxe_reth *reth = rxe_ext(skb, RXE_EXT_RETH);
	u32 len = be32_to_cpu(reth->len);
	struct rxe_mr *mr;

	*nak = AETH_NAK_REM_ACCESS;
	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_READ))
		return NULL;
	if (len > RXE_MAX_MSG) {
		*nak = AETH_NAK_INVALID_REQ;
		return NULL;
	}
	mr = rxe_mr_get(qp->dev, qp->ib.pd, be32_to_cpu(reth->rkey), true, IB_ACCESS_REMOTE_READ,
			be64_to_cpu(reth->va), len);
	return mr;
}

static void rxe_resp_atomic_ack(struct rxe_qp *qp, u32 psn, u64 orig)
{
	struct sk_buff *skb;
	struct rxe_aeth *aeth;
	struct rxe_atmack *ack;

	skb = rxe_pkt_alloc(qp->dev, &qp->av, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, 0);
	if (!skb)
		return;
	rxe_bth_init(skb, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, false, qp->attr.dest_qp_num, false,
		     psn, 0);
	aeth = rxe_ext(skb, RXE_EXT_AETH);
	aeth->smsn = cpu_to_be32((u32)AETH_ACK_UNLIMITED << 24 | (qp->msn & 0xffffff));
	ack = rxe_ext(skb, RXE_EXT_ATMACK);
	ack->orig = cpu_to_be64(orig);
	rxe_pkt_send(qp->dev, &qp->av, qp->src_port, skb);
}

/* A request with an old PSN: acknowledge again, or repeat the READ / atomic answer. */
static void rxe_resp_duplicate(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	u32 mask = rxe_opinfo[pkt->opcode].mask;

	if (mask & RXE_READ) {
		struct rxe_reth *reth = rxe_ext(skb, RXE_EXT_RETH);
		u32 len = be32_to_cpu(reth->len);
		struct rxe_mr *mr = NULL;
		u8 nak;

		if (len) {
			mr = rxe_read_mr(qp, skb, &nak);
			if (!mr)
				return;
		}
		rxe_read_start(qp, mr, be64_to_cpu(reth->va), len, pkt->psn);
	} else if (mask & RXE_ATOMIC) {
		if (qp->atomic_valid && qp->atomic_psn == pkt->psn)
			rxe_resp_atomic_ack(qp, pkt->psn, qp->atomic_orig);
	} else if (pkt->ackreq) {
		rxe_send_ack(qp, AETH_ACK_UNLIMITED, rxe_psn_add(qp->resp_psn, RXE_PSN_MASK));
	}
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
	err = rxe_sgl_copy(qp, qp->rwqe.sge, qp->rwqe.num_sge, &qp->w_cur_sge, &qp->w_sge_off,
			   rxe_payload(skb), pkt->paylen, true);
	if (err) {
		rxe_post_recv_wc(qp, IB_WC_LOC_PROT_ERR, IB_WC_RECV, 0, NULL, 0, 0);
		rxe_resp_fail(qp, AETH_NAK_REM_OP, pkt->psn);
		return false;
	}
	qp->recv_off += pkt->paylen;
	if (mask & RXE_LAST) {
		rxe_post_recv_wc(qp, IB_WC_SUCCESS, IB_WC_RECV, qp->recv_off, skb,
				 qp->attr.dest_qp_num, 0);
		qp->msn++;
	}
	return true;
}

static bool rxe_resp_write(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	u32 mask = rxe_opinfo[pkt->opcode].mask;

	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE)) {
		rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, pkt->psn);
		return false;
	}
	/* Immediate data needs a receive WQE: check before touching anything. */
	if ((mask & RXE_IMMDT) && !qp->rwqe_valid) {
		if (rxe_fetch_rwqe(qp, &qp->rwqe)) {
			rxe_send_ack(qp, AETH_RNR_NAK | (qp->attr.min_rnr_timer & 0x1f), pkt->psn);
			qp->nak_sent = true;
			return false;
		}
		qp->rwqe_valid = true;
	}
	if (mask & RXE_FIRST) {
		struct rxe_reth *reth = rxe_ext(skb, RXE_EXT_RETH);
		u32 len = be32_to_cpu(reth->len);

		if (qp->w_mr) {
			rxe_mr_put(qp->w_mr);
			qp->w_mr = NULL;
		}
		qp->w_va = be64_to_cpu(reth->va);
		qp->w_resid = len;
		qp->w_total = len;
		if (len) {
			qp->w_mr = rxe_mr_get(qp->dev, qp->ib.pd, be32_to_cpu(reth->rkey), true,
					      IB_ACCESS_REMOTE_WRITE, qp->w_va, len);
			if (!qp->w_mr) {
				rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, pkt->psn);
				return false;
			}
		}
	}
	if (pkt->paylen > qp->w_resid || (pkt->paylen && !qp->w_mr) ||
	    ((mask & RXE_LAST) && pkt->paylen != qp->w_resid)) {
		rxe_resp_fail(qp, AETH_NAK_INVALID_REQ, pkt->psn);
		return false;
	}
	if (pkt->paylen) {
		if (rxe_mr_copy(qp->w_mr, qp->w_va, rxe_payload(skb), pkt->paylen, true)) {
			rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, pkt->psn);
			return false;
		}
		qp->w_va += pkt->paylen;
		qp->w_resid -= pkt->paylen;
	}
	if (mask & RXE_LAST) {
		if (qp->w_mr) {
			rxe_mr_put(qp->w_mr);
			qp->w_mr = NULL;
		}
		if (mask & RXE_IMMDT)
			rxe_post_recv_wc(qp, IB_WC_SUCCESS, IB_WC_RECV_RDMA_WITH_IMM, qp->w_total,
					 skb, qp->attr.dest_qp_num, 0);
		qp->msn++;
	}
	return true;
}

static bool rxe_resp_read(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	struct rxe_reth *reth = rxe_ext(skb, RXE_EXT_RETH);
	u32 len = be32_to_cpu(reth->len);
	struct rxe_mr *mr = NULL;
	u8 nak;

	if (len || !(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_READ)) {
		mr = rxe_read_mr(qp, skb, &nak);
		if (!mr) {
			rxe_resp_fail(qp, nak, pkt->psn);
			return false;
		}
	}
	qp->msn++;
	rxe_read_start(qp, mr, be64_to_cpu(reth->va), len, pkt->psn);
	qp->resp_psn = rxe_psn_add(qp->resp_psn, max_t(u32, 1, DIV_ROUND_UP(len, qp->mtu)));
	return true;
}

static bool rxe_resp_atomic(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	struct rxe_atmeth *a = rxe_ext(skb, RXE_EXT_ATMETH);
	u64 va = be64_to_cpu(a->va);
	struct rxe_mr *mr;
	u64 *addr, orig;

	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_ATOMIC)) {
		rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, pkt->psn);
		return false;
	}
	mr = rxe_mr_get(qp->dev, qp->ib.pd, be32_to_cpu(a->rkey), true, IB_ACCESS_REMOTE_ATOMIC,
			va, sizeof(u64));
	if (!mr) {
		rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, pkt->psn);
		return false;
	}
	addr = rxe_mr_map8(mr, va);
	if (!addr) {
		rxe_mr_put(mr);
		rxe_resp_fail(qp, AETH_NAK_INVALID_REQ, pkt->psn);
		return false;
	}
	spin_lock_bh(&qp->dev->atomic_lock);
	if (pkt->opcode == IB_OPCODE_RC_COMPARE_SWAP)
		orig = cmpxchg64(addr, be64_to_cpu(a->compare), be64_to_cpu(a->swap_add));
	else
		orig = atomic64_fetch_add(be64_to_cpu(a->swap_add), (atomic64_t *)addr);
	spin_unlock_bh(&qp->dev->atomic_lock);
	rxe_mr_unmap8(mr, addr);
	rxe_mr_put(mr);

	qp->atomic_psn = pkt->psn;
	qp->atomic_orig = orig;
	qp->atomic_valid = true;
	qp->msn++;
	rxe_resp_atomic_ack(qp, pkt->psn, orig);
	qp->resp_psn = rxe_psn_add(qp->resp_psn, 1);
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
		err = rxe_sgl_copy(qp, qp->rwqe.sge, qp->rwqe.num_sge, &qp->w_cur_sge,
				   &qp->w_sge_off, rxe_payload(skb), pkt->paylen, true);
	if (err) {
		rxe_post_recv_wc(qp, IB_WC_LOC_PROT_ERR, IB_WC_RECV, 0, NULL, 0, 0);
		return;
	}
	rxe_post_recv_wc(qp, IB_WC_SUCCESS, IB_WC_RECV, pkt->paylen + sizeof(grh), skb,
			 be32_to_cpu(deth->sqp) & RXE_QPN_MASK, IB_WC_GRH);
}

/* Handle one request packet addressed to this QP. Consumes the skb. */
void rxe_responder(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	u32 mask = rxe_opinfo[pkt->opcode].mask;
	bool in_send = qp->rwqe_valid && qp->recv_off, in_write = qp->w_resid != 0;
	bool ok;
	int diff;

	if (qp->ib.qp_type != IB_QPT_RC) {
		rxe_resp_ud(qp, skb);
		goto out;
	}
	diff = rxe_psn_diff(pkt->psn, qp->resp_psn);
	if (diff > 0) {
		rxe_dbg_qp(qp, "request psn %u ahead of %u\n", pkt->psn, qp->resp_psn);
		if (!qp->nak_sent) {
			rxe_send_ack(qp, AETH_NAK_PSN_SEQ, qp->resp_psn);
			qp->nak_sent = true;
		}
		goto out;
	}
	if (diff < 0) {
		rxe_dbg_qp(qp, "duplicate request psn %u (expected %u)\n", pkt->psn, qp->resp_psn);
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
			rxe_send_ack(qp, AETH_ACK_UNLIMITED, pkt->psn);
	}
out:
	kfree_skb(skb);
}
