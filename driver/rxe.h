/* SPDX-License-Identifier: GPL-2.0 */
/* rxe.h - private structures and cross-file functions of the bundled rdma_rxe driver. */
#ifndef RXE_H
#define RXE_H

#ifdef pr_fmt
#undef pr_fmt
#endif
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/llist.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/netdevice.h>
#include <linux/in6.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <rdma/uverbs_ioctl.h>
#include "rxe_hdr.h"

/* Limits reported by query_device and enforced when objects are created. */
#define RXE_MAX_QP		0x10000
#define RXE_MAX_QP_WR		0x4000
#define RXE_MAX_SGE		32
#define RXE_MAX_INLINE		512
#define RXE_MAX_CQ		0x4000
#define RXE_MAX_CQE		0x8000
#define RXE_MAX_MR		0x40000
#define RXE_MAX_MW		0x10000
#define RXE_MW_INDEX0		0x100000	/* first MW key index: MR indices are all below it */
#define RXE_MAX_FRMR_PAGES	512	/* max_fast_reg_page_list_len: pages of one fast-reg MR */
#define RXE_MAX_PD		0x10000
#define RXE_MAX_AH		0x8000
#define RXE_MAX_SRQ		0x4000
#define RXE_MAX_SRQ_WR		0x4000
#define RXE_MAX_RD_ATOMIC	128
#define RXE_MAX_MCAST_GRP	8192	/* multicast groups of a device */
#define RXE_MAX_MCAST_QP_ATTACH	56	/* UD QPs attached to one group */
#define RXE_MAX_MSG		0x80000000u
#define RXE_GID_TBL_LEN		1024
#define RXE_MIN_QPN		16
#define RXE_GSI_QPN		1
#define RXE_WINDOW		256	/* unacknowledged request packets per QP, at most */
#define RXE_WINDOW_MIN		4	/* the window after a retransmit timeout (rxe_comp.c) */
#define RXE_ACKREQ_EVERY	32	/* ask for an ACK at least this often */
#define RXE_ACK_COALESCE	16	/* ACK requests a responder run answers with one ACK, at most */
#define RXE_RD_BURST		64	/* READ response packets per worker run */
#define RXE_RXQ_MAX		4096	/* received packets queued per QP */
#define RXE_TIMEOUT_DEFERS	16	/* timeouts waited out in a row while responses come in */

/* Debug output names the object and the function; enable with dynamic debug. */
#define rxe_dbg(dev, fmt, ...) \
	pr_debug("%s: %s: " fmt, (dev)->ib.name, __func__, ##__VA_ARGS__)
#define rxe_dbg_qp(qp, fmt, ...) \
	pr_debug("%s qp#%u: %s: " fmt, (qp)->dev->ib.name, (qp)->ib.qp_num, __func__, ##__VA_ARGS__)

/* Port counters (rxe_stats.c has the names); the first group has stock rdma_rxe's meanings. */
enum rxe_counter {
	RXE_CNT_SENT_PKTS,		/* packets handed to IP or looped back */
	RXE_CNT_RCVD_PKTS,		/* packets that passed the checks and reached a QP */
	RXE_CNT_DUP_REQ,		/* responder: request with an old PSN */
	RXE_CNT_OUT_OF_SEQ_REQ,		/* responder: request with a PSN ahead (sequence NAK) */
	RXE_CNT_RCV_RNR,		/* requester: RNR NAK received */
	RXE_CNT_SND_RNR,		/* responder: RNR NAK sent */
	RXE_CNT_RCV_SEQ_ERR,		/* requester: sequence error NAK received */
	RXE_CNT_ACK_DEFERRED,		/* responses queued to the QP worker, not handled inline */
	RXE_CNT_RETRY_EXCEEDED,		/* WQE failed with IB_WC_RETRY_EXC_ERR */
	RXE_CNT_RNR_RETRY_EXCEEDED,	/* WQE failed with IB_WC_RNR_RETRY_EXC_ERR */
	RXE_CNT_COMP_RETRY,		/* requester went back to retransmit (timeout or NAK) */
	RXE_CNT_SEND_ERR,		/* packets the IP layer refused or could not route */
	RXE_CNT_LINK_DOWNED,		/* port went from active to down */
	RXE_CNT_RDMA_SEND,		/* SEND WQEs completed successfully (requester) */
	RXE_CNT_RDMA_RECV,		/* receive WQEs completed successfully by a SEND */
	/* this driver's own */
	RXE_CNT_LOOPBACK_PKTS,		/* packets delivered to a local rxe without the wire */
	RXE_CNT_RETRY_TIMEOUTS,		/* retransmit timer expirations that resent */
	RXE_CNT_RCVD_DROPPED,		/* received packets dropped (bad header, ICRC, QP, full) */
	RXE_CNT_WORKER_RUNS,		/* QP work runs in the worker (rxe_wq) */
	RXE_CNT_INLINE_RUNS,		/* QP work runs in the caller's context (doorbell, loopback) */
	RXE_CNT_LOOPBACK_INLINE,	/* loopback packets whose QP ran in the sender's context */
	RXE_CNT_RUN_HANDOFFS,		/* runs asked of a QP whose lock was held: its holder ran them */
	RXE_CNT_GAP_RETRIES,		/* requester re-issued a READ/atomic on a response PSN gap */
	RXE_CNT_ROUTE_LOOKUPS,		/* a send's destination looked up (is it local, the route) */
	RXE_CNT_RCVD_PAGED,		/* wire packets that arrived in page fragments (read in place) */
	RXE_CNT_LOOPBACK_PLACED,	/* WQEs to a local QP carried out as a copy (no packets) */
	RXE_CNT_LOOPBACK_FALLBACK,	/* WQEs to a local QP that went as packets instead */
	RXE_CNT_SENT_PAGED,		/* packets sent with their payload in the MR's pages */
	RXE_CNT_SOFTIRQ_RUNS,		/* user QP runs in the softirq that received wire packets */
	RXE_CNT_WINDOW_CUTS,		/* requester window cut after a loss (timeout, NAK, gap) */
	RXE_CNT_SEQ_NAKS_IGNORED,	/* sequence NAKs repeating one already acted on, no progress */
	RXE_CNT_ACKS_COALESCED,		/* ACK requests answered by a later ACK of the same run */
	RXE_CNT_RX_BATCHES,		/* wire receive batches that ran a user QP (rxe_qp_rx_batch()) */
	RXE_CNT_TIMEOUTS_DEFERRED,	/* retransmit timeouts waited out: the peer was still responding */
	RXE_CNT_RESUMED_MID_MSG,	/* go-back-N resumed a SEND/WRITE inside it (rxe_resume_at()) */
	RXE_NUM_COUNTERS
};

struct rxe_dev {
	struct ib_device	ib;
	struct net_device	*ndev;
	netdevice_tracker	ndev_tracker;
	struct xarray		qps;		/* qpn -> rxe_qp */
	struct xarray		mrs;		/* key index -> rxe_mr; its lock (_bh) guards MW state too */
	struct xarray		mws;		/* key index -> rxe_mw (rxe_mw.c) */
	struct xarray		ahs;		/* ah_num -> rxe_ah */
	u32			next_qpn;
	u32			next_mr;
	u32			next_mw;
	u32			next_ah;
	struct list_head	mcgs;		/* multicast groups (rxe_mcast.c), RCU */
	struct mutex		mcg_lock;	/* attach/detach; takes the RTNL inside */
	u32			n_mcg;
	/* objects in use, held to the limits query_device reports */
	atomic_t		n_pd, n_cq, n_srq, n_qp, n_mr, n_mw;
	enum ib_port_state	port_state;
	atomic64_t		stats[RXE_NUM_COUNTERS];
};

static inline void rxe_counter_inc(struct rxe_dev *dev, enum rxe_counter c)
{
	atomic64_inc(&dev->stats[c]);
}

/* Count one more object against @max; false (and nothing counted) at the limit. */
static inline bool rxe_count_get(atomic_t *n, int max)
{
	return atomic_add_unless(n, 1, max);
}

static inline struct rxe_dev *to_rdev(struct ib_device *ib)
{
	return container_of(ib, struct rxe_dev, ib);
}

struct rxe_ucontext {
	struct ib_ucontext	ib;
};

struct rxe_pd {
	struct ib_pd		ib;
};

/* Kernel view of an address vector: where packets of a QP or AH go. */
struct rxe_addr {
	int			family;		/* AF_INET or AF_INET6 */
	union {
		__be32		v4;
		struct in6_addr	v6;
	} saddr, daddr;
	u8			dmac[ETH_ALEN];
	int			ifindex;	/* the source GID's netdev (a VLAN, say), or 0 */
	u8			ttl;
	u8			tos;
	u32			flow_label;
};

/*
 * What rxe_net.c remembers of a connected QP's path between its packets (under qp->lock): whether
 * the destination is an address of this host, valid while the namespace's routing generation
 * (rt_genid_ipv4/6: bumped by any address or route change) is @genid, and the route out.
 */
struct rxe_route {
	struct dst_cache	dst;
	int			genid;
	bool			known;
	bool			local;
};

struct rxe_ah {
	struct ib_ah		ib;
	struct rxe_addr		av;
	u32			ah_num;
};

/* Mapping of a user-shared ring for mmap(); the ring memory lives until the last VMA closes. */
struct rxe_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void			*buf;
};

/* A ring in the rdma_user_rxe.h layout, shared with user space or private to the kernel. */
struct rxe_queue {
	struct rxe_queue_buf	*buf;
	size_t			size;
	u32			log2_elem;
	u32			mask;		/* slots - 1, never read back from the shared page */
	u32			index;		/* our consumer (WQ) or producer (CQ) index */
	struct rxe_mmap_entry	*mmap;
};

static inline void *rxe_queue_slot(struct rxe_queue *q, u32 idx)
{
	return q->buf->data + ((size_t)(idx & q->mask) << q->log2_elem);
}

/* Entries the other side has produced that we have not consumed yet. */
static inline u32 rxe_queue_avail(struct rxe_queue *q)
{
	u32 prod = smp_load_acquire(&q->buf->producer_index);

	return (prod - q->index) & q->mask;
}

static inline void rxe_queue_consume(struct rxe_queue *q)
{
	q->index = (q->index + 1) & q->mask;
	smp_store_release(&q->buf->consumer_index, q->index);
}

/* rxe_queue.c */
int rxe_queue_init(struct rxe_dev *dev, struct rxe_queue *q, u32 nelem, size_t elem,
		   struct ib_udata *udata, struct mminfo *mi);
void rxe_queue_free(struct rxe_queue *q);
void rxe_queue_move(struct rxe_queue *nq, struct rxe_queue *oq, u32 from, u32 n, size_t esize);
int rxe_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma);
void rxe_mmap_free(struct rdma_user_mmap_entry *entry);

/* Events and notifications collected under qp->lock, delivered after it is dropped. */
enum {
	RXE_EV_QP_FATAL,
	RXE_EV_CQ_COMP,
	RXE_EV_CQ_ERR,
	RXE_EV_SRQ_LIMIT,
	RXE_EV_QP_LAST_WQE,
};

union rxe_cqe {
	struct ib_uverbs_wc	u;
	struct ib_wc		k;
};

struct rxe_cq {
	struct ib_cq		ib;
	struct rxe_queue	q;
	spinlock_t		lock;		/* producer side and arming */
	bool			user;
	u8			armed;		/* 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP */
	bool			overflow;
	unsigned long		events;		/* RXE_EV_CQ_* */
};

/* A receive request copied out of a ring: what the responder writes into. */
struct rxe_rwqe {
	u64			wr_id;
	u32			num_sge;
	u32			length;
	struct rxe_sge		sge[RXE_MAX_SGE];
};

struct rxe_srq {
	struct ib_srq		ib;
	struct rxe_queue	q;
	spinlock_t		lock;		/* consumer side, shared by QPs */
	u32			max_sge;
	u32			limit;
	bool			user;
	unsigned long		events;		/* RXE_EV_SRQ_LIMIT */
};

/*
 * MR states (as the IBA names them): a user or DMA MR is valid from registration to
 * deregistration; a fast-register MR (alloc_mr) starts free, IB_WR_REG_MR makes it valid,
 * local or remote invalidation makes it free again. Only a valid MR is found by rxe_mr_get().
 */
enum rxe_mr_state {
	RXE_MR_FREE,
	RXE_MR_VALID,
};

struct rxe_mr {
	struct ib_mr		ib;
	struct rxe_dev		*dev;
	u32			index;
	/*
	 * The key the packet paths match (ib.lkey/rkey of a fast-register MR belong to the
	 * consumer, who changes them with ib_update_fast_reg_key() before IB_WR_REG_MR), with
	 * state, access, iova, length and the page list: all written under the dev->mrs lock,
	 * the others before state becomes valid (a release; rxe_mr_get() reads them locklessly
	 * after an acquire of state, holding a reference that keeps them from changing).
	 */
	u32			key;
	u8			state;		/* enum rxe_mr_state */
	bool			dma;		/* kernel DMA MR: addresses are kernel VAs */
	bool			frmr;		/* fast-register MR: pages are kernel VAs of blocks */
	int			access;
	u64			iova;
	u64			length;
	struct ib_umem		*umem;
	struct page		**pages;	/* user MR: pinned pages */
	unsigned long		npages;		/* pages or frmr blocks in use */
	unsigned int		page_off;	/* offset of iova in pages[0] (or fpages[0]) */
	/* fast-register MR: the registered list, and the one map_mr_sg() fills (REG copies it) */
	u64			*fpages;
	u64			*fmap;
	u32			fmax;		/* max_num_sg: entries of fpages and fmap */
	u32			nmap;		/* entries map_mr_sg() filled */
	unsigned int		map_off;	/* offset of the mapped iova in its first block */
	unsigned int		map_shift;	/* log2 of the mapped block size (page_size) */
	unsigned int		fshift;		/* log2 of the registered block size */
	u32			changing;	/* registrations/invalidations holding a ref */
	u32			n_mw;		/* memory windows bound to it (dev->mrs lock) */
	refcount_t		ref;
	struct completion	done;
	struct rcu_head		rcu;		/* rxe_mr_get() looks it up under RCU alone */
};

/*
 * A memory window (rxe_mw.c): an rkey over part of an MR, bound and unbound by work requests
 * (IB_WR_BIND_MW; ibv_bind_mw posts one for a type 1 window). A type 1 window is always
 * bindable and is usable while it covers a non-empty range; a type 2 window starts free, a
 * bind makes it valid and ties it to the binding QP (only requests arriving on that QP may use
 * it), local or remote invalidation makes it free again. All fields but ib are written under
 * the dev->mrs lock, and the packet paths read them under it.
 */
enum rxe_mw_state {
	RXE_MW_FREE,
	RXE_MW_VALID,
};

struct rxe_mw {
	struct ib_mw		ib;
	u32			index;
	u32			key;		/* the current rkey (ib.rkey is the consumer's) */
	u8			state;		/* enum rxe_mw_state */
	int			access;		/* IB_ACCESS_REMOTE_* granted */
	u64			addr;
	u64			length;
	struct rxe_mr		*mr;		/* bound to (counted in mr->n_mw), or NULL */
	struct rxe_qp		*qp;		/* type 2: the QP it is bound to (qp->n_mw) */
};

/* A send request copied out of the ring and validated, plus transmit/receive progress. */
struct rxe_swqe {
	u64			wr_id;
	u32			opcode;		/* IB_WR_* */
	u32			flags;		/* IB_SEND_* */
	__be32			imm;
	u32			inv_rkey;
	u64			raddr;
	u32			rkey;
	u64			swap_add;
	u64			compare;
	u32			remote_qpn;
	u32			remote_qkey;
	struct rxe_addr		av;		/* UD only */
	u32			length;
	u32			num_sge;
	bool			inl;
	u8			bad_status;	/* not IB_WC_SUCCESS: complete with this */
	u8			state;
	bool			sent_once;	/* every packet went out once: after a rewind an
						 * ACK past last_psn still completes it */
	u32			first_psn;
	u32			last_psn;
	u32			sent;		/* bytes put on the wire in this attempt */
	u32			rx_off;		/* read response bytes received */
	u32			rx_pkts;	/* read response packets received */
	u32			cur_sge;
	u32			sge_off;
	uintptr_t		reg_mr;		/* IB_WR_REG_MR (kernel QPs): the ib_mr, compared only */
	u32			reg_access;	/* IB_WR_REG_MR, IB_WR_BIND_MW: access flags; the
						 * new key is in rkey (BIND_MW: addr in raddr) */
	u32			mw_key;		/* IB_WR_BIND_MW: the window's current rkey */
	u32			mr_key;		/* IB_WR_BIND_MW: the lkey of the MR bound to */
	u64			mw_len;		/* IB_WR_BIND_MW: length (0: unbind a type 1) */
	union {	/* flexible arrays: kernels with -fstrict-flex-arrays (7.x) size [0] as 0 */
		DECLARE_FLEX_ARRAY(struct rxe_sge, sge);
		DECLARE_FLEX_ARRAY(u8, data);
	};
};

enum rxe_swqe_state {
	RXE_WQE_PENDING,	/* nothing sent yet */
	RXE_WQE_SENDING,	/* some packets sent */
	RXE_WQE_SENT,		/* all packets sent, waiting for the peer */
	RXE_WQE_DONE,
};

/* Information about a received packet, kept in skb->cb; skb->data points at the BTH. */
struct rxe_pkt {
	u32			psn;
	u32			qpn;
	u32			paylen;
	u8			opcode;
	u8			hdr_len;
	bool			ackreq;
	bool			se;
};

static inline struct rxe_pkt *rxe_pkt(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct rxe_pkt) > sizeof(skb->cb));
	return (struct rxe_pkt *)skb->cb;
}

static inline void *rxe_ext(struct sk_buff *skb, enum rxe_ext e)
{
	return skb->data + rxe_opinfo[rxe_pkt(skb)->opcode].off[e];
}

/*
 * The payload of a packet being built (always linear). A received packet's payload may lie
 * in page fragments (the wire's skbs are not linearized): read it with rxe_pkt_to_mr() and
 * rxe_pkt_to_sgl() (rxe_net.c).
 */
static inline void *rxe_payload(struct sk_buff *skb)
{
	return skb->data + rxe_pkt(skb)->hdr_len;
}

/* One responder resource: what a READ or atomic request asked for, and the atomic's result. */
struct rxe_resp_res {
	u32			type;		/* 0 (free), RXE_READ or RXE_ATOMIC */
	u32			first_psn;
	u32			last_psn;
	u32			rkey;
	u64			va;
	u32			len;
	u64			orig;		/* atomic: the value returned */
};

/* enum rxe_run: where a QP's work runs (rxe_qp.c explains the execution model) */
enum rxe_run {
	RXE_RUN_WORKER,		/* the QP's work item on rxe_wq */
	RXE_RUN_CALLER,		/* a user QP's doorbell, in the poster's system call */
	RXE_RUN_NESTED,		/* a loopback packet, in the context of the run that sent it */
	RXE_RUN_SOFTIRQ,	/* a user QP's wire packets, in the receiving softirq */
};

/* qp->flags */
enum {
	RXE_QPF_RUN,		/* work asked for: the holder of qp->lock runs it before it returns */
	RXE_QPF_LOCKED,		/* qp->lock: held by whoever runs the QP's work (rxe_qp_lock()) */
	RXE_QPF_BATCHED,	/* listed on a CPU's wire receive batch (rxe_qp_rx_batch()) */
};

struct rxe_qp {
	struct ib_qp		ib;
	struct rxe_dev		*dev;
	struct work_struct	work;
	unsigned long		flags;		/* RXE_QPF_*, atomic bit operations; the lock */
	atomic_t		runners;	/* nested and softirq runs that may touch the QP: destroy waits */
	struct llist_node	batch_node;	/* on a CPU's wire receive batch (RXE_QPF_BATCHED) */
	bool			nested;		/* under lock: this run sends loopback packets queued */
	struct sk_buff_head	rxq;		/* received packets for this QP */
	struct timer_list	retry_timer;
	struct timer_list	rnr_timer;
	bool			dying;		/* under rxq.lock: no more packets queued */
	u32			n_mcast;	/* multicast groups attached (dev->mcg_lock) */
	u32			n_mw;		/* type 2 windows bound to it (dev->mrs lock) */
	bool			user;
	bool			sig_all;
	bool			sq_flush_pending;
	bool			last_wqe_raised;	/* SRQ QP in error: LAST_WQE_REACHED sent */
	unsigned long		events;		/* RXE_EV_QP_FATAL, RXE_EV_QP_LAST_WQE */
	enum ib_qp_state	state;
	struct ib_qp_attr	attr;		/* last values set by modify_qp */
	struct rxe_addr		av;		/* primary path (RC) */
	struct rxe_route	route;		/* of av (RC, UC) */
	u16			src_port;
	u32			mtu;		/* path MTU in bytes */

	/* send queue */
	struct rxe_queue	sq;		/* sq.index = oldest not completed */
	spinlock_t		sq_lock;	/* kernel post_send producer */
	u32			sq_max_sge;
	u32			sq_max_inline;
	size_t			swqe_size;
	u8			*swqes;		/* kernel copies, one per ring slot */
	u32			sq_fetched;	/* next ring index to copy out */
	u32			req_idx;	/* next WQE to transmit */
	u32			req_psn;	/* next PSN to send */
	u32			acked_psn;	/* oldest PSN not yet acknowledged */
	u32			sent_psn;	/* one past the newest PSN ever sent (req_psn rewinds) */
	u32			pkts_since_ackreq;
	int			retry_left;
	int			defers_left;	/* timeouts it may still wait out (rxe_comp_timeout()) */
	bool			resp_seen;	/* a response came in since the timer was last (re)armed */
	int			rnr_left;
	bool			rnr_wait;
	bool			retry_fire;
	bool			gap_retried;	/* re-issued for a response gap; cleared by progress */
	bool			seq_nak_rewound; /* rewound for a sequence NAK at seq_nak_psn; ditto */
	u32			seq_nak_psn;
	u32			cwnd;		/* request PSNs it may have unacknowledged (rxe_comp.c) */
	u32			ssthresh;	/* above it cwnd grows by one per cwnd acknowledged */
	u32			cwnd_acked;	/* PSNs acknowledged toward that next one */
	unsigned long		retry_jiffies;

	/* receive queue (absent with an SRQ) */
	struct rxe_queue	rq;
	spinlock_t		rq_lock;	/* kernel post_recv producer */
	u32			rq_max_sge;
	struct rxe_srq		*srq;
	struct rxe_cq		*scq;
	struct rxe_cq		*rcq;

	/* responder */
	u32			resp_psn;	/* next expected request PSN */
	u32			msn;
	bool			nak_sent;	/* sequence/RNR NAK outstanding */
	bool			ack_owed;	/* an ACK of ack_psn is due by the end of this run */
	u8			ack_reqs;	/* ACK requests it answers */
	u32			ack_psn;
	u32			ack_msn;	/* the MSN when ack_psn was taken */
	bool			rwqe_valid;
	struct rxe_rwqe		rwqe;		/* receive being filled by a multi-packet SEND */
	u32			recv_off;	/* bytes written into rwqe */
	u32			w_cur_sge, w_sge_off;
	u32			uc_msg;		/* UC: RXE_SEND/RXE_WRITE message in progress, or 0 */
	/*
	 * RDMA WRITE and READ response in progress: only the rkey is kept, the MR is looked up
	 * again for every packet, so no MR reference outlives one worker run and a peer that
	 * stops sending cannot keep an MR from being deregistered.
	 */
	u32			w_rkey;
	u64			w_va;
	u32			w_resid;
	u32			w_total;
	u32			rd_rkey;	/* READ response being sent, paced */
	u64			rd_va;
	u32			rd_len;
	u32			rd_psn;
	u32			rd_pkt;
	u32			rd_npkts;
	u32			rd_mtu;		/* its packets' size, fixed at its start */
	bool			rd_active;
	/*
	 * Responder resources (IBA 9.7.5.1.4): the last max_dest_rd_atomic READ and atomic
	 * requests, oldest overwritten first. A duplicate READ or atomic is answered only from
	 * one of these records; no other old request is executed again. Allocated by modify_qp
	 * (charged to the caller's memory cgroup) with max_dest_rd_atomic entries, not kept in
	 * struct rxe_qp: the RDMA core allocates that uncharged, and 128 records made it 6.7 KB.
	 */
	struct rxe_resp_res	*res;
	u32			nres;		/* entries in res[]: max_dest_rd_atomic */
	u32			res_next;	/* slot the next READ or atomic takes */
};

static inline struct rxe_qp *to_rqp(struct ib_qp *ib)
{
	return container_of(ib, struct rxe_qp, ib);
}

/*
 * Progress (an acknowledgement, a timeout's rewind, a placement, a reset): the next response gap
 * or sequence NAK is a new loss, to be acted on again (rxe_comp.c).
 */
static inline void rxe_loss_repairs_clear(struct rxe_qp *qp)
{
	qp->gap_retried = false;
	qp->seq_nak_rewound = false;
}

/*
 * Progress (an acknowledgement, a placement, the move to RTS): the retries, the RNR retries and
 * the timeouts it may wait out start over (rxe_comp.c), as stock rxe's do: rnr_retry bounds the
 * RNR NAKs in a row, not over the QP's life (refilled only at RTS, a QP with rnr_retry 1-6 died
 * at its (N+1)th RNR episode however far apart: issue 36). A timeout's rewind does not refill
 * them, nor an RNR NAK that acknowledges nothing new.
 */
static inline void rxe_retries_refill(struct rxe_qp *qp)
{
	qp->retry_left = qp->attr.retry_cnt;
	qp->rnr_left = qp->attr.rnr_retry;
	qp->defers_left = RXE_TIMEOUT_DEFERS;
}

/* Datagram QPs (UD, and the GSI QP): one packet per message, an AH per WQE. */
static inline bool rxe_qp_is_ud(const struct rxe_qp *qp)
{
	return qp->ib.qp_type == IB_QPT_UD || qp->ib.qp_type == IB_QPT_GSI;
}

/* Connected QPs (RC, UC): one peer, the path in qp->av. */
static inline bool rxe_qp_is_conn(const struct rxe_qp *qp)
{
	return qp->ib.qp_type == IB_QPT_RC || qp->ib.qp_type == IB_QPT_UC;
}

/* Does @qp take packets of an opcode with @mask: its transport is the QP's type. */
static inline bool rxe_qp_takes(const struct rxe_qp *qp, u32 mask)
{
	switch (qp->ib.qp_type) {
	case IB_QPT_RC:
		return mask & RXE_RC;
	case IB_QPT_UC:
		return mask & RXE_UC;
	default:
		return mask & RXE_UD;
	}
}

static inline struct rxe_swqe *rxe_swqe(struct rxe_qp *qp, u32 idx)
{
	return (struct rxe_swqe *)(qp->swqes + (size_t)(idx & qp->sq.mask) * qp->swqe_size);
}

#define to_rcq(x)	container_of(x, struct rxe_cq, ib)
#define to_rsrq(x)	container_of(x, struct rxe_srq, ib)
#define to_rmr(x)	container_of(x, struct rxe_mr, ib)
#define to_rah(x)	container_of(x, struct rxe_ah, ib)
#define to_rpd(x)	container_of(x, struct rxe_pd, ib)
#define to_rmw(x)	container_of(x, struct rxe_mw, ib)

/* rxe_main.c */
extern struct workqueue_struct *rxe_wq;

/* rxe_stats.c */
struct rdma_hw_stats *rxe_alloc_hw_port_stats(struct ib_device *ib, u32 port);
int rxe_get_hw_stats(struct ib_device *ib, struct rdma_hw_stats *stats, u32 port, int index);

/* rxe_icrc.c */
u32 rxe_icrc(const void *ip, const void *bth, unsigned int len);
u32 rxe_icrc_skb(struct sk_buff *skb, unsigned int len);
u32 rxe_icrc_at(struct sk_buff *skb, unsigned int bth_off, unsigned int len);
void rxe_icrc_init(void);
void rxe_icrc_exit(void);

/* rxe_net.c */
int rxe_net_init(void);
void rxe_net_exit(void);
struct sk_buff *rxe_pkt_alloc(struct rxe_dev *dev, const struct rxe_addr *av, u8 opcode,
			      u32 paylen);
struct sk_buff *rxe_pkt_alloc_paged(struct rxe_dev *dev, const struct rxe_addr *av, u8 opcode,
				    u32 paylen);
int rxe_pkt_add_tail(struct sk_buff *skb, u32 paylen);
bool rxe_qp_dest_local(struct rxe_qp *qp);
int rxe_pkt_send(struct rxe_qp *qp, const struct rxe_addr *av, struct sk_buff *skb);
void rxe_bth_init(struct sk_buff *skb, u8 opcode, bool se, u32 qpn, bool ackreq, u32 psn,
		  u32 paylen);
int rxe_route_init(struct rxe_route *r);
void rxe_route_reset(struct rxe_route *r);
void rxe_route_destroy(struct rxe_route *r);
int rxe_av_from_attr(struct rxe_dev *dev, struct rxe_addr *av, const struct rdma_ah_attr *attr);
/* rxe_rcv(): where a packet comes from */
enum rxe_src {
	RXE_SRC_WIRE,		/* softirq, from the UDP socket: checked ICRC; a user QP runs here */
	RXE_SRC_LOCAL,		/* looped back by a nested or softirq run: queued */
	RXE_SRC_LOCAL_RUN,	/* looped back by a top-level run: its user QP may run nested */
};
void rxe_rcv(struct rxe_dev *dev, struct sk_buff *skb, enum rxe_src src);
bool rxe_qp_queue_rx(struct rxe_qp *qp, struct sk_buff *skb);
struct rxe_qp *rxe_local_peer(struct rxe_qp *qp);
bool rxe_peer_is_ours(const struct rxe_qp *peer, const struct rxe_qp *qp);
void rxe_qp_runner_put(struct rxe_qp *qp);

/* rxe_mcast.c */
int rxe_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int rxe_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
void rxe_mcast_qp_gone(struct rxe_qp *qp);
int rxe_mcast_deliver(struct rxe_dev *dev, struct sk_buff *skb);
void rxe_mcast_cleanup(struct rxe_dev *dev);
bool rxe_pkt_from_peer(const struct rxe_addr *av, struct sk_buff *skb);

/* rxe_mr.c */
struct ib_mr *rxe_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *rxe_reg_user_mr(struct ib_pd *pd, u64 start, u64 length, u64 iova, int access,
			      struct ib_udata *udata);
struct ib_mr *rxe_alloc_mr(struct ib_pd *pd, enum ib_mr_type type, u32 max_num_sg);
int rxe_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
int rxe_mr_fast_reg(struct rxe_dev *dev, struct ib_pd *pd, uintptr_t ibmr, u32 key, int access);
int rxe_mr_invalidate(struct rxe_dev *dev, struct ib_pd *pd, u32 key, bool remote);
int rxe_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);
struct rxe_mr *rxe_mr_get(struct rxe_dev *dev, struct ib_pd *pd, u32 key, bool remote,
			  int access, u64 va, u64 len);
void rxe_mr_put(struct rxe_mr *mr);
bool rxe_mr_change_get(struct rxe_mr *mr);
void rxe_mr_change_put(struct rxe_dev *dev, struct rxe_mr *mr);
void rxe_mr_drain(struct rxe_mr *mr);
void *rxe_mr_map8(struct rxe_mr *mr, u64 va);
void rxe_mr_unmap8(struct rxe_mr *mr, void *addr);
int rxe_mr_walk(struct rxe_mr *mr, u64 va, u32 len,
		int (*fn)(void *arg, const u8 *p, unsigned int n), void *arg);
int rxe_mr_copy(struct rxe_mr *mr, u64 va, void *buf, u32 len, bool to_mr);
int rxe_skb_walk(struct sk_buff *skb, unsigned int off, unsigned int len,
		 int (*fn)(void *arg, const u8 *p, unsigned int n), void *arg);
int rxe_pkt_to_mr(struct sk_buff *skb, struct rxe_mr *mr, u64 va);
int rxe_pkt_to_sgl(struct rxe_qp *qp, struct sk_buff *skb, const struct rxe_sge *sge, u32 nsge,
		   u32 *cur_sge, u32 *sge_off);
int rxe_sgl_copy(struct rxe_qp *qp, const struct rxe_sge *sge, u32 nsge, u32 *cur_sge,
		 u32 *sge_off, void *buf, u32 len, bool to_sgl);
int rxe_sgl_to_frags(struct rxe_qp *qp, const struct rxe_sge *sge, u32 nsge, u32 *cur_sge,
		     u32 *sge_off, struct sk_buff *skb, u32 len, unsigned int max_frags);
int rxe_swqe_to_mr(struct rxe_qp *qp, const struct rxe_swqe *w, struct rxe_mr *mr, u64 va);
int rxe_swqe_to_sgl(struct rxe_qp *qp, const struct rxe_swqe *w, struct rxe_qp *dqp,
		    const struct rxe_sge *sge, u32 nsge);
int rxe_mr_to_sgl(struct rxe_mr *mr, u64 va, u32 len, struct rxe_qp *dqp,
		  const struct rxe_sge *sge, u32 nsge);

/* rxe_mw.c */
static inline bool rxe_key_is_mw(u32 key)
{
	return (key >> 8) >= RXE_MW_INDEX0;
}
int rxe_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int rxe_dealloc_mw(struct ib_mw *ibmw);
enum ib_wc_status rxe_mw_bind(struct rxe_qp *qp, const struct rxe_swqe *w);
int rxe_mw_invalidate(struct rxe_qp *qp, u32 key, bool remote);
void rxe_mw_qp_gone(struct rxe_qp *qp);
struct rxe_mr *rxe_rkey_get(struct rxe_qp *qp, u32 rkey, int access, u64 va, u64 len);

/* rxe_verbs.c: ib_device_ops entry points (the table is in rxe_main.c) */
int rxe_query_device(struct ib_device *ib, struct ib_device_attr *a, struct ib_udata *udata);
int rxe_query_port(struct ib_device *ib, u32 port, struct ib_port_attr *a);
int rxe_get_port_immutable(struct ib_device *ib, u32 port, struct ib_port_immutable *im);
enum rdma_link_layer rxe_get_link_layer(struct ib_device *ib, u32 port);
int rxe_query_pkey(struct ib_device *ib, u32 port, u16 index, u16 *pkey);
int rxe_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata);
void rxe_dealloc_ucontext(struct ib_ucontext *uctx);
int rxe_alloc_pd(struct ib_pd *pd, struct ib_udata *udata);
int rxe_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata);
int rxe_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init, struct ib_udata *udata);
int rxe_destroy_ah(struct ib_ah *ibah, u32 flags);
int rxe_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int rxe_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr, struct ib_udata *udata);
int rxe_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int rxe_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int rxe_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc);
int rxe_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int rxe_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init, struct ib_udata *udata);
int rxe_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr, enum ib_srq_attr_mask mask,
		   struct ib_udata *udata);
int rxe_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int rxe_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int rxe_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata);
int rxe_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask, struct ib_udata *udata);
int rxe_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int rxe_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int rxe_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad);
int rxe_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr, const struct ib_send_wr **bad);
int rxe_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr, const struct ib_recv_wr **bad);

/* rxe_cq.c */
int rxe_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr, struct ib_udata *udata);
int rxe_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata);
int rxe_cq_resize(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int rxe_cq_poll(struct ib_cq *ibcq, int n, struct ib_wc *wc);
int rxe_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void rxe_cq_post(struct rxe_cq *cq, const struct ib_uverbs_wc *wc, struct rxe_qp *qp,
		 bool solicited);
void rxe_cq_deliver(struct rxe_cq *cq);

/* rxe_srq.c */
int rxe_srq_create(struct ib_srq *ibsrq, struct ib_srq_init_attr *init, struct ib_udata *udata);
int rxe_srq_modify(struct ib_srq *ibsrq, struct ib_srq_attr *attr, enum ib_srq_attr_mask mask,
		   struct ib_udata *udata);
int rxe_srq_query(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int rxe_srq_destroy(struct ib_srq *ibsrq, struct ib_udata *udata);
int rxe_fetch_rwqe(struct rxe_qp *qp, struct rxe_rwqe *rw);

/* rxe_qp.c: the execution model (where a QP's work runs) and the QP's lifecycle */
int rxe_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata);
int rxe_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask, struct ib_udata *udata);
int rxe_qp_query(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int rxe_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata);
void rxe_qp_error(struct rxe_qp *qp);
void rxe_qp_kick(struct rxe_qp *qp);
void rxe_qp_again(struct rxe_qp *qp);
bool rxe_qp_run_now(struct rxe_qp *qp, enum rxe_run how);
bool rxe_qp_rx_batch(struct rxe_qp *qp);
void rxe_rx_batch_init(void);
void rxe_rx_batch_exit(void);
void rxe_qp_want(struct rxe_qp *qp);
bool rxe_qp_trylock_peer(struct rxe_qp *qp);
void rxe_qp_unlock_peer(struct rxe_qp *qp);
void rxe_qp_work(struct work_struct *work);

/* rxe_req.c: the requester; called with qp->lock held by a run of the QP */
void rxe_requester(struct rxe_qp *qp);
void rxe_complete_swqe(struct rxe_qp *qp, struct rxe_swqe *w, enum ib_wc_status status);
void rxe_rewind(struct rxe_qp *qp);
bool rxe_resume_at(struct rxe_qp *qp, u32 psn);
void rxe_arm_retry(struct rxe_qp *qp);
bool rxe_is_rd_atomic(u32 opcode);
bool rxe_wr_opcode_ok(struct rxe_qp *qp, u32 opcode);
bool rxe_flush(struct rxe_qp *qp);
bool rxe_window_full(const struct rxe_qp *qp, u32 end);
u32 rxe_npkts(struct rxe_qp *qp, struct rxe_swqe *w);

/* rxe_req_pkt.c: the requester's packets; called with qp->lock held by a run of the QP */
int rxe_send_next(struct rxe_qp *qp, struct rxe_swqe *w);

/* rxe_comp.c: the completer; called with qp->lock held by a run of the QP */
void rxe_completer(struct rxe_qp *qp, struct sk_buff *skb);
void rxe_comp_timeout(struct rxe_qp *qp);
void rxe_window_reset(struct rxe_qp *qp);
bool rxe_comp_peer_took_all(struct rxe_qp *qp);

/* rxe_resp.c: the responder; called with qp->lock held by a run of the QP */
void rxe_responder(struct rxe_qp *qp, struct sk_buff *skb);
void rxe_resp_reset(struct rxe_qp *qp);
void rxe_resp_ack_flush(struct rxe_qp *qp);
int rxe_resp_place(struct rxe_qp *qp, struct rxe_qp *req, const struct rxe_swqe *w, u32 npkts);
void rxe_resp_fail(struct rxe_qp *qp, u8 nak, u32 psn);
void rxe_ack_later(struct rxe_qp *qp, u32 psn);

/* rxe_resp_read.c: READ responses, atomics, responder resources, duplicates; qp->lock held */
void rxe_read_stop(struct rxe_qp *qp);
bool rxe_rkey_ok(struct rxe_qp *qp, u32 rkey, int access, u64 va, u64 len);
struct rxe_resp_res *rxe_res_new(struct rxe_qp *qp, u32 type, u32 psn, u32 npkts);
void rxe_resp_duplicate(struct rxe_qp *qp, struct sk_buff *skb);
bool rxe_resp_read(struct rxe_qp *qp, struct sk_buff *skb);
int rxe_atomic_op(struct rxe_mr *mr, u64 va, bool cmp, u64 compare, u64 swap_add, u64 *orig);
bool rxe_resp_atomic(struct rxe_qp *qp, struct sk_buff *skb);
void rxe_read_continue(struct rxe_qp *qp);

#endif /* RXE_H */
