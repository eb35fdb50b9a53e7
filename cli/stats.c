// SPDX-License-Identifier: GPL-2.0
/* stats.c - an rxe device's counters (RDMA netlink STAT_GET): read, compare, explain errors. */
#include <errno.h>
#include <string.h>

#include "rxe.h"
#include "stats.h"
#include "util.h"

/* The error counters of rdma_rxe (enum rxe_counters in the kernel) and what usually drives them. */
static const struct {
	const char *name;
	const char *cause;
} error_counters[] = {
	{ "duplicate_request", "the peer retransmits requests this side already received: lost "
	  "ACKs or a retransmit timeout too short for the path (loss: check the MTU on both ends "
	  "and the switch, the firewall for UDP 4791, and the link)" },
	{ "out_of_seq_request", "requests arrive with a gap in their sequence numbers: packets "
	  "are lost on the way in (check the MTU on both ends and the switch, the firewall for "
	  "UDP 4791, and the link)" },
	{ "rcvd_seq_err", "the peer saw a gap in the sequence and NAKed it: packets this side "
	  "sends are lost (check the MTU on both ends and the switch, the firewall for UDP 4791, "
	  "and the link)" },
	{ "rcvd_rnr_err", "the peer had no receive buffer posted (RNR NAK): the receiving "
	  "application posts receives too slowly, not a network problem" },
	{ "send_rnr_err", "this side had no receive buffer posted when a send arrived (RNR NAK "
	  "sent): the local application posts receives too slowly" },
	{ "retry_exceeded_err", "a QP gave up after its retries: the peer stopped answering "
	  "(loss, a firewall dropping UDP 4791, an MTU mismatch, or the peer went away)" },
	{ "retry_rnr_exceeded_err", "a QP gave up after its RNR retries: the peer never posted "
	  "receive buffers" },
	{ "completer_retry_err", "requests were retransmitted after a timeout: packets or ACKs are "
	  "lost (check the MTU on both ends and the switch, the firewall for UDP 4791, and the "
	  "link)" },
	{ "send_err", "the driver could not hand packets to the netdev (netdev down, or no route "
	  "or neighbour for the peer)" },
	{ "link_downed", "the netdev under the device went down" },
};

int rxe_stats_read(struct rxectl *ctx, const struct rxe_dev *d, struct rxe_stats *st)
{
	struct rdma_nl *nl = ctx_rdma_nl(ctx);

	memset(st, 0, sizeof(*st));
	if (!nl)
		return st->err = -ENOTCONN;
	st->err = rdma_nl_get_stats(nl, d->index, d->port ? d->port : 1, st->v,
				    RDMA_NL_MAX_STATS, &st->n);
	if (st->err == 0 && st->n == 0)
		st->err = -EOPNOTSUPP;
	return st->err;
}

unsigned long long rxe_stats_value(const struct rxe_stats *st, const char *name, bool *found)
{
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->v[i].name, name)) {
			if (found)
				*found = true;
			return st->v[i].value;
		}
	if (found)
		*found = false;
	return 0;
}

const char *rxe_stats_cause(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(error_counters); i++)
		if (!strcmp(error_counters[i].name, name))
			return error_counters[i].cause;
	return NULL;
}

bool rxe_stats_is_error(const char *name)
{
	return rxe_stats_cause(name) != NULL;
}

bool rxe_stats_unsupported(int err)
{
	return err == -EINVAL || err == -EOPNOTSUPP || err == -ENOENT;
}
