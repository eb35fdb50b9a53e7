// SPDX-License-Identifier: GPL-2.0
/* rxe_stats.c - the port's hardware counters, read by `rdma statistic show link rxe_X/1`. */

#include "rxe.h"

/*
 * The first RXE_CNT_STOCK names are those of the kernel's stock rdma_rxe, with the same
 * meaning, so tools and dashboards read either driver alike; the rest are this driver's own.
 */
static const struct rdma_stat_desc rxe_counter_descs[RXE_NUM_COUNTERS] = {
	[RXE_CNT_SENT_PKTS].name		= "sent_pkts",
	[RXE_CNT_RCVD_PKTS].name		= "rcvd_pkts",
	[RXE_CNT_DUP_REQ].name			= "duplicate_request",
	[RXE_CNT_OUT_OF_SEQ_REQ].name		= "out_of_seq_request",
	[RXE_CNT_RCV_RNR].name			= "rcvd_rnr_err",
	[RXE_CNT_SND_RNR].name			= "send_rnr_err",
	[RXE_CNT_RCV_SEQ_ERR].name		= "rcvd_seq_err",
	[RXE_CNT_ACK_DEFERRED].name		= "ack_deferred",
	[RXE_CNT_RETRY_EXCEEDED].name		= "retry_exceeded_err",
	[RXE_CNT_RNR_RETRY_EXCEEDED].name	= "retry_rnr_exceeded_err",
	[RXE_CNT_COMP_RETRY].name		= "completer_retry_err",
	[RXE_CNT_SEND_ERR].name			= "send_err",
	[RXE_CNT_LINK_DOWNED].name		= "link_downed",
	[RXE_CNT_RDMA_SEND].name		= "rdma_sends",
	[RXE_CNT_RDMA_RECV].name		= "rdma_recvs",
	[RXE_CNT_LOOPBACK_PKTS].name		= "loopback_pkts",
	[RXE_CNT_RETRY_TIMEOUTS].name		= "retry_timeouts",
	[RXE_CNT_RCVD_DROPPED].name		= "rcvd_dropped",
	[RXE_CNT_WORKER_RUNS].name		= "worker_runs",
	[RXE_CNT_INLINE_RUNS].name		= "inline_runs",
	[RXE_CNT_LOOPBACK_INLINE].name		= "loopback_inline",
	[RXE_CNT_RUN_HANDOFFS].name		= "run_handoffs",
	[RXE_CNT_GAP_RETRIES].name		= "gap_retries",
	[RXE_CNT_SEQ_NAKS_IGNORED].name		= "seq_naks_ignored",
	[RXE_CNT_ROUTE_LOOKUPS].name		= "route_lookups",
	[RXE_CNT_RCVD_PAGED].name		= "rcvd_paged",
	[RXE_CNT_LOOPBACK_PLACED].name		= "loopback_placed",
	[RXE_CNT_LOOPBACK_FALLBACK].name	= "loopback_fallback",
	[RXE_CNT_SENT_PAGED].name		= "sent_paged",
	[RXE_CNT_SOFTIRQ_RUNS].name		= "softirq_runs",
	[RXE_CNT_WINDOW_CUTS].name		= "window_cuts",
	[RXE_CNT_ACKS_COALESCED].name		= "acks_coalesced",
	[RXE_CNT_RX_BATCHES].name		= "rx_batches",
	[RXE_CNT_TIMEOUTS_DEFERRED].name	= "timeouts_deferred",
	[RXE_CNT_RESUMED_MID_MSG].name		= "resumed_mid_msg",
};

struct rdma_hw_stats *rxe_alloc_hw_port_stats(struct ib_device *ib, u32 port)
{
	/* Lifespan 0: every read is fresh, so a reading right after traffic is exact. */
	return rdma_alloc_hw_stats_struct(rxe_counter_descs, RXE_NUM_COUNTERS, 0);
}

int rxe_get_hw_stats(struct ib_device *ib, struct rdma_hw_stats *stats, u32 port, int index)
{
	struct rxe_dev *dev = to_rdev(ib);
	int i;

	for (i = 0; i < RXE_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&dev->stats[i]);
	return RXE_NUM_COUNTERS;
}
