// SPDX-License-Identifier: GPL-2.0
/* rxe_qp.c - where a QP runs (lock, runs, softirq batches, worker, timers) and its lifecycle. */

#include <linux/vmalloc.h>
#include <linux/hash.h>
#include <linux/wait_bit.h>
#include <rdma/ib_addr.h>
#include "rxe.h"

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

int rxe_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata)
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

int rxe_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask, struct ib_udata *udata)
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
	/*
	 * The packet size: the path MTU, at most what the netdev carries now, fixed when the path
	 * MTU is set (a datagram QP, which has none, takes the netdev's at every modify). Not
	 * recomputed on other attribute changes, as stock does not: the netdev's MTU may have
	 * moved since, and the packets of a message in progress were counted with the old one
	 * (a READ being answered copied from beyond its range or from no MR: issue 36).
	 */
	if (mask & IB_QP_PATH_MTU)
		qp->mtu = ib_mtu_enum_to_int(min(qp->attr.path_mtu,
						 iboe_get_mtu(READ_ONCE(dev->ndev->mtu))));
	else if (!qp->attr.path_mtu)
		qp->mtu = ib_mtu_enum_to_int(iboe_get_mtu(READ_ONCE(dev->ndev->mtu)));
	if (qp->mtu <= 0)
		qp->mtu = 256;

	if (mask & IB_QP_STATE) {
		if (new == IB_QPS_RESET)
			rxe_qp_reset(qp);
		if (new == IB_QPS_RTS && cur != IB_QPS_RTS) {
			rxe_retries_refill(qp);
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

int rxe_qp_query(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
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

int rxe_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata)
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
