// SPDX-License-Identifier: GPL-2.0
/* rxe_resp_read.c - responder: READ responses, atomics, responder resources, duplicate requests. */

#include "rxe.h"

void rxe_read_stop(struct rxe_qp *qp)
{
	qp->rd_active = false;
}

/*
 * Send the next burst of READ response packets. Responses are paced so one large READ
 * cannot queue millions of packets at once; the worker calls back until rd_active clears.
 * The MR is looked up again for each burst and released before returning: if it was
 * deregistered meanwhile, the READ ends with a remote access NAK. The packets' size is the
 * path MTU the READ started with (rd_mtu): a modify_qp that changes qp->mtu meanwhile must not
 * change the count of packets or their offsets.
 * The burst is built first and sent once the MR's reference is dropped: a packet looped back
 * may run its requester nested here (rxe_rcv()), and that run's next WQE may invalidate a
 * window over this MR, which waits for the MR's references to drain (rxe_mr_drain()) --
 * forever, while this frame below it on the stack still held one (issue 36).
 */
void rxe_read_continue(struct rxe_qp *qp)
{
	u32 mtu = qp->rd_mtu, start = qp->rd_pkt * mtu, end;
	struct sk_buff_head out;
	struct rxe_mr *mr = NULL;
	int burst = RXE_RD_BURST;
	struct sk_buff *skb;

	if (qp->state == IB_QPS_ERR) {
		rxe_read_stop(qp);
		return;
	}
	rxe_resp_ack_flush(qp);
	end = min_t(u64, qp->rd_len, (u64)(qp->rd_pkt + burst) * mtu);
	if (end > start) {
		mr = rxe_rkey_get(qp, qp->rd_rkey, IB_ACCESS_REMOTE_READ, qp->rd_va + start,
				  end - start);
		if (!mr) {
			rxe_read_stop(qp);
			rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, rxe_psn_add(qp->rd_psn, qp->rd_pkt));
			return;
		}
	}
	__skb_queue_head_init(&out);
	while (qp->rd_pkt < qp->rd_npkts && burst-- > 0) {
		u32 off = qp->rd_pkt * mtu;
		u32 n = min(mtu, qp->rd_len - off);
		bool first = qp->rd_pkt == 0, last = qp->rd_pkt == qp->rd_npkts - 1;
		u8 op = first && last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY :
			first ? IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST :
			last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST :
			IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE;

		skb = rxe_pkt_alloc(qp->dev, &qp->av, op, n);
		if (!skb)
			break;		/* try again on the next run */
		if (n && rxe_mr_copy(mr, qp->rd_va + off, rxe_payload(skb), n, false)) {
			kfree_skb(skb);
			rxe_read_stop(qp);
			break;
		}
		rxe_bth_init(skb, op, false, qp->attr.dest_qp_num, false,
			     rxe_psn_add(qp->rd_psn, qp->rd_pkt), n);
		if (rxe_opinfo[op].mask & RXE_AETH) {
			struct rxe_aeth *aeth = rxe_ext(skb, RXE_EXT_AETH);

			aeth->smsn = cpu_to_be32((u32)AETH_ACK_UNLIMITED << 24 |
						 (qp->msn & 0xffffff));
		}
		__skb_queue_tail(&out, skb);
		qp->rd_pkt++;
	}
	if (mr)
		rxe_mr_put(mr);
	if (qp->rd_pkt >= qp->rd_npkts)
		rxe_read_stop(qp);
	while ((skb = __skb_dequeue(&out)))
		rxe_pkt_send(qp, &qp->av, skb);
}

/* Start answering a READ of [va, va + len) with @rkey at @psn. */
static void rxe_read_start(struct rxe_qp *qp, u32 rkey, u64 va, u32 len, u32 psn)
{
	qp->rd_rkey = rkey;
	qp->rd_va = va;
	qp->rd_len = len;
	qp->rd_psn = psn;
	qp->rd_pkt = 0;
	qp->rd_mtu = qp->mtu;
	qp->rd_npkts = max_t(u32, 1, DIV_ROUND_UP(len, qp->mtu));
	qp->rd_active = true;
	rxe_read_continue(qp);
}

/* Check that @rkey gives @access to [va, va + len); false when it does not. */
bool rxe_rkey_ok(struct rxe_qp *qp, u32 rkey, int access, u64 va, u64 len)
{
	struct rxe_mr *mr;

	if (!len)
		return true;
	mr = rxe_rkey_get(qp, rkey, access, va, len);
	if (!mr)
		return false;
	rxe_mr_put(mr);
	return true;
}

/* Take the next responder resource for a READ or atomic request. */
struct rxe_resp_res *rxe_res_new(struct rxe_qp *qp, u32 type, u32 psn, u32 npkts)
{
	struct rxe_resp_res *res = &qp->res[qp->res_next % qp->nres];

	qp->res_next = (qp->res_next + 1) % qp->nres;
	memset(res, 0, sizeof(*res));
	res->type = type;
	res->first_psn = psn;
	res->last_psn = rxe_psn_add(psn, npkts - 1);
	return res;
}

/* The responder resource whose PSN range holds @psn, or NULL. */
static struct rxe_resp_res *rxe_res_find(struct rxe_qp *qp, u32 type, u32 psn)
{
	u32 i;

	for (i = 0; i < qp->nres; i++) {
		struct rxe_resp_res *res = &qp->res[i];

		if (res->type == type && rxe_psn_diff(psn, res->first_psn) >= 0 &&
		    rxe_psn_diff(psn, res->last_psn) <= 0)
			return res;
	}
	return NULL;
}

static void rxe_resp_atomic_ack(struct rxe_qp *qp, u32 psn, u64 orig)
{
	struct sk_buff *skb;
	struct rxe_aeth *aeth;
	struct rxe_atmack *ack;

	rxe_resp_ack_flush(qp);
	skb = rxe_pkt_alloc(qp->dev, &qp->av, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, 0);
	if (!skb)
		return;
	rxe_bth_init(skb, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, false, qp->attr.dest_qp_num, false,
		     psn, 0);
	aeth = rxe_ext(skb, RXE_EXT_AETH);
	aeth->smsn = cpu_to_be32((u32)AETH_ACK_UNLIMITED << 24 | (qp->msn & 0xffffff));
	ack = rxe_ext(skb, RXE_EXT_ATMACK);
	ack->orig = cpu_to_be64(orig);
	rxe_pkt_send(qp, &qp->av, skb);
}

/*
 * A request with an old PSN. SEND/WRITE: acknowledge again, always. READ and atomic: answer
 * again only what a responder resource records, and only when the request asks for exactly that
 * (a retried READ asks for the part of the recorded range not yet received). Any other old
 * request is dropped silently, whatever its rkey, as stock rxe drops it: a duplicate the
 * responder holds no record of changes nothing (issue 36). (This driver used to answer one
 * with a bad rkey with a remote access NAK and the error state, against rkey probing: then
 * one spoofed packet with the peer's address -- any PSN in the half of the PSN space behind
 * the expected one -- ended the connection; the silent drop tells a guesser nothing either.)
 */
void rxe_resp_duplicate(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	u32 mask = rxe_opinfo[pkt->opcode].mask;
	struct rxe_resp_res *res;

	if (mask & RXE_READ) {
		struct rxe_reth *reth = rxe_ext(skb, RXE_EXT_RETH);
		u32 rkey = be32_to_cpu(reth->rkey), len = be32_to_cpu(reth->len);
		u64 va = be64_to_cpu(reth->va), off;

		res = rxe_res_find(qp, RXE_READ, pkt->psn);
		if (res) {
			off = (u64)rxe_psn_diff(pkt->psn, res->first_psn) * qp->mtu;
			if (rkey == res->rkey && off <= res->len && va == res->va + off &&
			    len == res->len - off) {
				rxe_read_start(qp, rkey, va, len, pkt->psn);
				return;
			}
		}
		rxe_dbg_qp(qp, "old READ psn %u matches no responder resource: dropped\n",
			   pkt->psn);
	} else if (mask & RXE_ATOMIC) {
		struct rxe_atmeth *a = rxe_ext(skb, RXE_EXT_ATMETH);

		res = rxe_res_find(qp, RXE_ATOMIC, pkt->psn);
		if (res && res->rkey == be32_to_cpu(a->rkey) && res->va == be64_to_cpu(a->va)) {
			rxe_resp_atomic_ack(qp, pkt->psn, res->orig);
			return;
		}
		rxe_dbg_qp(qp, "old atomic psn %u matches no responder resource: dropped\n",
			   pkt->psn);
	} else {
		/*
		 * A SEND or WRITE: acknowledged again, AckReq or not, as stock does (a requester
		 * whose ACK was lost needs one; tests/guest/driver_conformance.bats compares), in
		 * the run's one coalesced ACK.
		 */
		rxe_ack_later(qp, rxe_psn_add(qp->resp_psn, RXE_PSN_MASK));
	}
}

bool rxe_resp_read(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	struct rxe_reth *reth = rxe_ext(skb, RXE_EXT_RETH);
	u32 len = be32_to_cpu(reth->len), rkey = be32_to_cpu(reth->rkey);
	u64 va = be64_to_cpu(reth->va);
	u32 npkts = max_t(u32, 1, DIV_ROUND_UP(len, qp->mtu));
	struct rxe_resp_res *res;

	if (len > RXE_MAX_MSG) {
		rxe_resp_fail(qp, AETH_NAK_INVALID_REQ, pkt->psn);
		return false;
	}
	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_READ) ||
	    !rxe_rkey_ok(qp, rkey, IB_ACCESS_REMOTE_READ, va, len)) {
		rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, pkt->psn);
		return false;
	}
	res = rxe_res_new(qp, RXE_READ, pkt->psn, npkts);
	res->rkey = rkey;
	res->va = va;
	res->len = len;
	qp->msn++;
	rxe_read_start(qp, rkey, va, len, pkt->psn);
	qp->resp_psn = rxe_psn_add(qp->resp_psn, npkts);
	return true;
}

/*
 * Carry out an atomic on the naturally aligned 8 bytes at @va of @mr: compare-and-swap (@cmp)
 * or fetch-and-add; *@orig gets the value before. Each is one atomic instruction on the
 * memory, so atomics of every QP and device are atomic with one another (IB_ATOMIC_HCA)
 * without a lock. -EINVAL when @va is not aligned.
 */
int rxe_atomic_op(struct rxe_mr *mr, u64 va, bool cmp, u64 compare, u64 swap_add, u64 *orig)
{
	u64 *addr = rxe_mr_map8(mr, va);

	if (!addr)
		return -EINVAL;
	if (cmp)
		*orig = cmpxchg64(addr, compare, swap_add);
	else
		*orig = atomic64_fetch_add(swap_add, (atomic64_t *)addr);
	rxe_mr_unmap8(mr, addr);
	return 0;
}

bool rxe_resp_atomic(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	struct rxe_atmeth *a = rxe_ext(skb, RXE_EXT_ATMETH);
	u64 va = be64_to_cpu(a->va);
	struct rxe_resp_res *res;
	struct rxe_mr *mr;
	u64 orig;

	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_ATOMIC)) {
		rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, pkt->psn);
		return false;
	}
	mr = rxe_rkey_get(qp, be32_to_cpu(a->rkey), IB_ACCESS_REMOTE_ATOMIC, va, sizeof(u64));
	if (!mr) {
		rxe_resp_fail(qp, AETH_NAK_REM_ACCESS, pkt->psn);
		return false;
	}
	if (rxe_atomic_op(mr, va, pkt->opcode == IB_OPCODE_RC_COMPARE_SWAP,
			  be64_to_cpu(a->compare), be64_to_cpu(a->swap_add), &orig)) {
		rxe_mr_put(mr);
		rxe_resp_fail(qp, AETH_NAK_INVALID_REQ, pkt->psn);
		return false;
	}
	rxe_mr_put(mr);

	res = rxe_res_new(qp, RXE_ATOMIC, pkt->psn, 1);
	res->rkey = be32_to_cpu(a->rkey);
	res->va = va;
	res->len = sizeof(u64);
	res->orig = orig;
	qp->msn++;
	rxe_resp_atomic_ack(qp, pkt->psn, orig);
	qp->resp_psn = rxe_psn_add(qp->resp_psn, 1);
	return true;
}
