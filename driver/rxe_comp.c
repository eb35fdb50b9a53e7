// SPDX-License-Identifier: GPL-2.0
/* rxe_comp.c - completer: ACKs, NAKs, read responses and atomic ACKs finish send WQEs. */

#include "rxe.h"

/* RNR NAK timer field (IBA 9.7.5.2.8) in microseconds; 0 means 655.36 ms. */
static const u32 rxe_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
	163840, 245760, 327680, 491520,
};

/*
 * The requester's window (qp->cwnd): how many request PSNs it may have unacknowledged. It
 * starts at RXE_WINDOW and stays there on a wire that loses nothing. A loss cuts it: a
 * retransmit timeout to RXE_WINDOW_MIN, a sequence NAK or a response gap to half the PSNs
 * that were outstanding (ssthresh); acknowledged PSNs grow it again, by as many as were
 * acknowledged up to ssthresh, then by one per window acknowledged, up to RXE_WINDOW. Go-back-N
 * resends everything outstanding: with the full window after each loss, several QPs to a peer
 * that cannot keep up (a slow guest, a full socket) resend ~1 MiB every timeout, the peer works
 * through duplicates while the one packet it needs waits behind them, and seven timeouts in a
 * row without progress fail the QP with RETRY_EXC_ERR (pair bench, ib_send_bw 4 KiB -q 4).
 * Stock rxe never fails there only because it treats retry_cnt 7 as infinite; the window keeps
 * the IBA's count and makes the retries land. Packets on the wire are unchanged.
 */
void rxe_window_reset(struct rxe_qp *qp)
{
	qp->cwnd = RXE_WINDOW;
	qp->ssthresh = RXE_WINDOW;
	qp->cwnd_acked = 0;
}

static void rxe_window_grow(struct rxe_qp *qp, u32 n)
{
	if (qp->cwnd < qp->ssthresh) {
		qp->cwnd = min(qp->cwnd + n, qp->ssthresh);
		return;
	}
	qp->cwnd_acked += n;
	while (qp->cwnd < RXE_WINDOW && qp->cwnd_acked >= qp->cwnd) {
		qp->cwnd_acked -= qp->cwnd;
		qp->cwnd++;
	}
	if (qp->cwnd >= RXE_WINDOW)
		qp->cwnd_acked = 0;
}

/* A loss: halve (sequence NAK, response gap) or shrink to the minimum (timeout). */
static void rxe_window_cut(struct rxe_qp *qp, bool timeout)
{
	u32 flight = max_t(int, rxe_psn_diff(qp->req_psn, qp->acked_psn), 0);

	qp->ssthresh = max_t(u32, min_t(u32, flight, qp->cwnd) / 2, RXE_WINDOW_MIN);
	qp->cwnd = timeout ? RXE_WINDOW_MIN : qp->ssthresh;
	qp->cwnd_acked = 0;
	rxe_counter_inc(qp->dev, RXE_CNT_WINDOW_CUTS);
}

/*
 * Complete, oldest first, the SEND/WRITE WQEs that @psn acknowledges. acked_psn advances to
 * @psn + 1 but never past a READ or atomic still waiting for its responses: a later PSN
 * does not acknowledge a response that never arrived.
 *
 * After a rewind (timeout, NAK) req_psn is back at acked_psn (or at the oldest WQE's start)
 * while the responder may have taken packets up to sent_psn: its ACK of a resent duplicate
 * names its newest PSN, past req_psn. That ACK counts: the WQEs it covers complete, the
 * requester skips the rest of them and, inside a SEND or WRITE, the packets up to it
 * (rxe_resume_at()). (Dropping it, as this driver did, deadlocked a QP whose window had
 * shrunk to fewer PSNs than the responder was ahead: the resends never reached a PSN the
 * responder lacked.)
 */
static void rxe_ack_upto(struct rxe_qp *qp, u32 psn)
{
	u32 limit = rxe_psn_add(psn, 1);

	while (qp->sq.index != qp->sq_fetched) {
		struct rxe_swqe *w = rxe_swqe(qp, qp->sq.index);
		bool again = w->state != RXE_WQE_SENT;	/* rewound: waiting or being resent */

		if (again && !w->sent_once)
			break;		/* never all sent (or a local operation): nothing to ack */
		if (rxe_is_rd_atomic(w->opcode) || rxe_psn_diff(w->last_psn, psn) > 0) {
			u32 wait = rxe_psn_add(w->first_psn, w->rx_pkts);

			if (rxe_is_rd_atomic(w->opcode) && rxe_psn_diff(wait, limit) < 0)
				limit = wait;
			break;
		}
		if (again) {
			if (qp->req_idx != qp->sq.index)
				break;	/* cannot happen: WQEs before req_idx are all SENT */
			qp->req_idx = (qp->req_idx + 1) & qp->sq.mask;
			qp->req_psn = rxe_psn_add(w->last_psn, 1);
			qp->pkts_since_ackreq = 0;
		}
		rxe_complete_swqe(qp, w, IB_WC_SUCCESS);
	}
	/*
	 * Into the WQE being resent: the responder is further on in it than the resend, so the
	 * resend skips ahead to @limit (rxe_resume_at()); when it cannot, acknowledged up to where
	 * its resend is.
	 */
	if (rxe_psn_diff(limit, qp->req_psn) > 0 && rxe_psn_diff(limit, qp->sent_psn) <= 0 &&
	    (qp->req_idx != qp->sq.index || !rxe_resume_at(qp, limit)))
		limit = qp->req_psn;
	if (rxe_psn_diff(limit, qp->acked_psn) > 0 && rxe_psn_diff(limit, qp->req_psn) <= 0) {
		rxe_window_grow(qp, rxe_psn_diff(limit, qp->acked_psn));
		qp->acked_psn = limit;
		rxe_retries_refill(qp);
		rxe_loss_repairs_clear(qp);
	}
}

/*
 * Loopback direct placement (rxe_req.c) found the peer expecting exactly req_psn: it has taken
 * every request packet this QP sent. Acknowledge them as its ACK would (the ACK packets still on
 * their way arrive as old ones) and stop the retransmit timer. True when nothing is left
 * outstanding; the caller makes sure no READ or atomic is (they wait for their responses).
 */
bool rxe_comp_peer_took_all(struct rxe_qp *qp)
{
	rxe_ack_upto(qp, rxe_psn_add(qp->req_psn, RXE_PSN_MASK));
	rxe_arm_retry(qp);
	return qp->acked_psn == qp->req_psn && qp->req_idx == qp->sq.index;
}

static void rxe_comp_fail(struct rxe_qp *qp, enum ib_wc_status status)
{
	if (status == IB_WC_RETRY_EXC_ERR)
		rxe_counter_inc(qp->dev, RXE_CNT_RETRY_EXCEEDED);
	else if (status == IB_WC_RNR_RETRY_EXC_ERR)
		rxe_counter_inc(qp->dev, RXE_CNT_RNR_RETRY_EXCEEDED);
	if (qp->sq.index != qp->sq_fetched)
		rxe_complete_swqe(qp, rxe_swqe(qp, qp->sq.index), status);
	rxe_qp_error(qp);
}

/*
 * Spend one of the QP's retries on a re-issue (a retransmit timeout or a response gap), counted
 * as @why and completer_retry_err; with none left the oldest WQE completes with
 * IB_WC_RETRY_EXC_ERR and the QP goes to error. True when the caller is to re-issue.
 */
static bool rxe_spend_retry(struct rxe_qp *qp, enum rxe_counter why)
{
	if (qp->retry_left <= 0) {
		rxe_comp_fail(qp, IB_WC_RETRY_EXC_ERR);
		return false;
	}
	qp->retry_left--;
	rxe_counter_inc(qp->dev, why);
	rxe_counter_inc(qp->dev, RXE_CNT_COMP_RETRY);
	return true;
}

/*
 * Does a NAK (or RNR NAK) of @psn name a request still outstanding: one sent (before sent_psn:
 * rxe_completer() checked) and not acknowledged yet (at or past acked_psn)? Stock rxe ignores a
 * response that matches no outstanding WQE, and so does this completer (issue 36): a NAK of an
 * older PSN, or one with nothing outstanding at all, is a stale copy or forged, and acted on
 * it failed an idle QP (remote access NAK), or made it wait out an RNR timer and spend an RNR
 * retry it did not owe (with rnr_retry 0: RNR_RETRY_EXC_ERR).
 */
static bool rxe_nak_outstanding(struct rxe_qp *qp, u32 psn)
{
	return qp->sq.index != qp->sq_fetched && rxe_psn_diff(psn, qp->acked_psn) >= 0;
}

static void rxe_comp_aeth(struct rxe_qp *qp, u32 psn, u8 syn)
{
	u32 prev = rxe_psn_add(psn, RXE_PSN_MASK);

	if ((syn & AETH_TYPE_MASK) != AETH_ACK && !rxe_nak_outstanding(qp, psn)) {
		rxe_dbg_qp(qp, "NAK 0x%02x of psn %u (acked %u) matches no outstanding request\n",
			   syn, psn, qp->acked_psn);
		return;
	}
	switch (syn & AETH_TYPE_MASK) {
	case AETH_ACK:
		rxe_ack_upto(qp, psn);
		break;
	case AETH_RNR_NAK:
		rxe_counter_inc(qp->dev, RXE_CNT_RCV_RNR);
		rxe_ack_upto(qp, prev);
		if (!qp->rnr_left) {
			rxe_comp_fail(qp, IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		if (qp->rnr_left != 7)
			qp->rnr_left--;
		qp->seq_nak_rewound = false;	/* the responder took the PSN it had NAKed */
		rxe_rewind(qp);
		qp->rnr_wait = true;
		mod_timer(&qp->rnr_timer,
			  jiffies + max_t(unsigned long, 1, usecs_to_jiffies(rxe_rnr_usecs[syn & 0x1f])));
		break;
	case AETH_NAK:
		rxe_ack_upto(qp, prev);
		switch (syn) {
		case AETH_NAK_PSN_SEQ:
			rxe_dbg_qp(qp, "sequence NAK at psn %u\n", psn);
			rxe_counter_inc(qp->dev, RXE_CNT_RCV_SEQ_ERR);
			/*
			 * A responder NAKs a sequence error once and then drops silently until
			 * the PSN it wants arrives (ours: nak_sent; stock rxe's too), so the same
			 * NAK again, with nothing acknowledged since the rewind it caused, is a
			 * copy or forged: each would resend the whole window (a 1:cwnd amplifier
			 * for anyone who can address the QP). The retransmit timer still covers
			 * a lost resend.
			 */
			if (qp->seq_nak_rewound && qp->seq_nak_psn == psn) {
				rxe_counter_inc(qp->dev, RXE_CNT_SEQ_NAKS_IGNORED);
				break;
			}
			qp->seq_nak_rewound = true;
			qp->seq_nak_psn = psn;
			rxe_counter_inc(qp->dev, RXE_CNT_COMP_RETRY);
			rxe_window_cut(qp, false);
			rxe_rewind(qp);
			break;
		case AETH_NAK_INVALID_REQ:
			rxe_comp_fail(qp, IB_WC_REM_INV_REQ_ERR);
			break;
		case AETH_NAK_REM_ACCESS:
			rxe_comp_fail(qp, IB_WC_REM_ACCESS_ERR);
			break;
		default:
			rxe_comp_fail(qp, IB_WC_REM_OP_ERR);
			break;
		}
		break;
	default:
		break;	/* reserved syndrome: ignore */
	}
}

static void rxe_comp_read(struct rxe_qp *qp, struct sk_buff *skb, struct rxe_swqe *w)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	u32 mask = rxe_opinfo[pkt->opcode].mask;
	int err;

	if (pkt->psn != rxe_psn_add(w->first_psn, w->rx_pkts)) {
		rxe_dbg_qp(qp, "read response psn %u, expected %u\n", pkt->psn,
			   rxe_psn_add(w->first_psn, w->rx_pkts));
		return;		/* a duplicate, or a gap: rxe_comp_gap() re-issues */
	}
	/*
	 * Position (first/middle/last) is not checked against rx_pkts: after a retry the
	 * responses to the re-issued remainder start with FIRST in mid-message.
	 */
	if (pkt->paylen > w->length - w->rx_off) {
		rxe_comp_fail(qp, IB_WC_LOC_LEN_ERR);
		return;
	}
	err = rxe_pkt_to_sgl(qp, skb, w->sge, w->num_sge, &w->cur_sge, &w->sge_off);
	if (err) {
		rxe_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return;
	}
	w->rx_off += pkt->paylen;
	w->rx_pkts++;
	rxe_ack_upto(qp, pkt->psn);	/* moves acked_psn; completes nothing past w */
	if (mask & RXE_LAST) {
		if (w->rx_off != w->length)
			rxe_comp_fail(qp, IB_WC_LOC_LEN_ERR);
		else
			rxe_complete_swqe(qp, w, IB_WC_SUCCESS);
	}
}

static void rxe_comp_atomic(struct rxe_qp *qp, struct sk_buff *skb, struct rxe_swqe *w)
{
	struct rxe_atmack *ack = rxe_ext(skb, RXE_EXT_ATMACK);
	u64 orig = be64_to_cpu(ack->orig);

	if (rxe_pkt(skb)->psn != w->first_psn)
		return;
	if (rxe_sgl_copy(qp, w->sge, w->num_sge, &w->cur_sge, &w->sge_off, &orig,
			 sizeof(orig), true)) {
		rxe_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return;
	}
	/*
	 * Its one response is in: rxe_ack_upto() then moves acked_psn past it. (Without this it
	 * stopped at the atomic's PSN, one short of req_psn: a QP whose last request was an
	 * atomic kept its retransmit timer running, spent a retry per expiry with nothing
	 * outstanding and at the end went to the error state.)
	 */
	w->rx_pkts = 1;
	rxe_ack_upto(qp, rxe_pkt(skb)->psn);
	rxe_complete_swqe(qp, w, IB_WC_SUCCESS);
}

/*
 * A response (READ response, atomic ACK or ACK) with a PSN past the next one the oldest
 * outstanding READ or atomic waits for: the responses between were lost (IBA 9.7.5.1.x,
 * an implied sequence error). Re-issue at once rather than wait out the retransmit timer:
 * rewind to that WQE, whose READ asks again for the remainder only. Like stock this spends
 * a retry (retry_left is refilled by the next progress) and counts completer_retry_err;
 * gap_retries counts it on its own. The responses already in flight behind the gap must not
 * rewind once each: after one re-issue further gaps are ignored until acked_psn advances
 * (a response at the rewound PSN arrived) or the timer fires.
 */
static void rxe_comp_gap(struct rxe_qp *qp, u32 psn)
{
	struct rxe_swqe *w;
	u32 want;

	if (qp->gap_retried || qp->state != IB_QPS_RTS || qp->sq.index == qp->sq_fetched)
		return;
	w = rxe_swqe(qp, qp->sq.index);
	if (w->state != RXE_WQE_SENT || !rxe_is_rd_atomic(w->opcode))
		return;
	want = rxe_psn_add(w->first_psn, w->rx_pkts);
	if (rxe_psn_diff(psn, want) <= 0)
		return;
	if (!rxe_spend_retry(qp, RXE_CNT_GAP_RETRIES))
		return;
	qp->gap_retried = true;
	rxe_dbg_qp(qp, "response psn %u past %u: re-issue, %d retries left\n", psn, want,
		   qp->retry_left);
	rxe_window_cut(qp, false);
	rxe_rewind(qp);
	rxe_arm_retry(qp);
}

/* Handle one response packet for our requests. Consumes the skb. */
void rxe_completer(struct rxe_qp *qp, struct sk_buff *skb)
{
	struct rxe_pkt *pkt = rxe_pkt(skb);
	u32 mask = rxe_opinfo[pkt->opcode].mask;
	u8 syn = AETH_ACK_UNLIMITED;
	u32 acked = qp->acked_psn;
	struct rxe_swqe *w;

	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		goto out;
	/* Only responses to PSNs we have sent (before any rewind) are of interest. */
	if (rxe_psn_diff(pkt->psn, qp->sent_psn) >= 0 ||
	    rxe_psn_diff(pkt->psn, qp->acked_psn) < -(int)RXE_WINDOW * 4)
		goto out;
	qp->resp_seen = true;	/* a response: unless it acknowledges something new (below) */
	if (mask & RXE_AETH)
		syn = be32_to_cpu(((struct rxe_aeth *)rxe_ext(skb, RXE_EXT_AETH))->smsn) >> 24;

	if (pkt->opcode == IB_OPCODE_RC_ACKNOWLEDGE) {
		rxe_comp_aeth(qp, pkt->psn, syn);
		if ((syn & AETH_TYPE_MASK) == AETH_ACK)
			rxe_comp_gap(qp, pkt->psn);
	} else if (mask & (RXE_READ | RXE_ATOMIC)) {
		if ((syn & AETH_TYPE_MASK) != AETH_ACK)
			goto out;
		/* A response implicitly acknowledges every earlier request. */
		rxe_ack_upto(qp, rxe_psn_add(pkt->psn, RXE_PSN_MASK));
		if (qp->sq.index == qp->sq_fetched)
			goto out;
		w = rxe_swqe(qp, qp->sq.index);
		if (w->state != RXE_WQE_SENT) {
			rxe_dbg_qp(qp, "response psn %u for a WQE in state %u\n", pkt->psn,
				   w->state);
			goto out;
		}
		if ((mask & RXE_READ) && w->opcode == IB_WR_RDMA_READ)
			rxe_comp_read(qp, skb, w);
		else if ((mask & RXE_ATOMIC) && w->opcode != IB_WR_RDMA_READ &&
			 rxe_is_rd_atomic(w->opcode))
			rxe_comp_atomic(qp, skb, w);
		rxe_comp_gap(qp, pkt->psn);
	}
	/*
	 * Push the retransmit timer out only when something new was acknowledged; a response that
	 * acknowledged nothing new lets the timer wait one more interval (rxe_comp_timeout()).
	 */
	if (qp->state != IB_QPS_ERR && (acked != qp->acked_psn || !timer_pending(&qp->retry_timer)))
		rxe_arm_retry(qp);	/* clears resp_seen */
	qp->resp_seen = acked == qp->acked_psn;
out:
	kfree_skb(skb);
}

/*
 * The retransmit timer expired with requests unacknowledged.
 *
 * If responses from the peer came in since the timer was armed, none new, the peer is alive and
 * working through requests queued ahead of the one we wait for: the responses of a READ stream
 * that a loss made useless, the READs after it, earlier re-issues. A re-issue now would only
 * queue one more whole READ stream behind them (with 4 QPs of 1 MiB READs on a lossy wire each
 * timeout added ~1000 packets and seven in a row failed the QP: bench/results/2026-12-07.md).
 * So the timeout is waited out instead, RXE_TIMEOUT_DEFERS times in a row at most (progress
 * refills them): the requester still re-issues once the responses stop, and a peer that answers
 * with nothing but old responses cannot hold the QP for longer than that. Stock 6.1 pushes its
 * timer on every response it receives, without a bound.
 */
void rxe_comp_timeout(struct rxe_qp *qp)
{
	if (rxe_psn_diff(qp->req_psn, qp->acked_psn) <= 0 || qp->rnr_wait)
		return;
	if (qp->resp_seen && qp->defers_left > 0) {
		qp->defers_left--;
		rxe_counter_inc(qp->dev, RXE_CNT_TIMEOUTS_DEFERRED);
		rxe_arm_retry(qp);
		return;
	}
	if (!rxe_spend_retry(qp, RXE_CNT_RETRY_TIMEOUTS))
		return;
	rxe_loss_repairs_clear(qp);
	rxe_dbg_qp(qp, "retransmit timeout: psn %u acked %u, %d retries left, window %u\n",
		   qp->req_psn, qp->acked_psn, qp->retry_left, qp->cwnd);
	rxe_window_cut(qp, true);
	rxe_rewind(qp);
	rxe_arm_retry(qp);
}
