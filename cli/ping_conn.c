// SPDX-License-Identifier: GPL-2.0
/* ping_conn.c - `rxectl ping`'s CM and verbs plumbing: waits with deadlines, one connection's resources, posts, the facts of this side. */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "log.h"
#include "ping.h"
#include "rxe.h"
#include "rxectl.h"
#include "version.h"
#include "util.h"
#include "ping_conn.h"
#include "stats.h"

int ping_ms_left(int64_t deadline)
{
	int64_t left = deadline - mono_ns();

	if (left <= 0)
		return 0;
	return left / 1000000 + 1 > 60000 ? 60000 : (int)(left / 1000000 + 1);
}

/*
 * Wait for the next CM event on `ch` until `deadline` (< 0: none).  Returns
 * 1 with *ev set, 0 on timeout, -EINTR when `sigfd` fires, or -errno.
 */
int ping_wait_cm(struct rdma_event_channel *ch, int sigfd, int64_t deadline,
		 struct rdma_cm_event **ev)
{
	for (;;) {
		struct pollfd p[2] = { { ch->fd, POLLIN, 0 }, { sigfd, POLLIN, 0 } };
		int t = deadline < 0 ? -1 : ping_ms_left(deadline);
		int r;

		if (deadline >= 0 && t == 0)
			return 0;
		r = poll(p, sigfd >= 0 ? 2 : 1, t);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0 && sigfd >= 0 && (p[1].revents & POLLIN))
			return -EINTR;
		if (r > 0 && (p[0].revents & POLLIN)) {
			if (rdma_get_cm_event(ch, ev))
				return -errno;
			return 1;
		}
	}
}

/*
 * The next work completion, until `deadline`.  1 with *wc set, 0 on timeout,
 * -EPIPE when a CM event (the peer disconnecting) arrives first (*cm_ev set
 * if cm_ev is not NULL, else acknowledged), -EINTR on a signal, or -errno.
 */
int ping_wait_wc(struct ping_conn *c, struct rdma_event_channel *ch, int sigfd, int64_t deadline,
		 struct ibv_wc *wc, struct rdma_cm_event **cm_ev)
{
	for (;;) {
		struct pollfd p[3] = { { c->cc->fd, POLLIN, 0 }, { ch->fd, POLLIN, 0 },
				       { sigfd, POLLIN, 0 } };
		struct rdma_cm_event *ev;
		int n = ibv_poll_cq(c->cq, 1, wc), r;

		if (n != 0)
			return n < 0 ? -EIO : 1;
		if (ibv_req_notify_cq(c->cq, 0))
			return -EIO;
		n = ibv_poll_cq(c->cq, 1, wc);
		if (n != 0)
			return n < 0 ? -EIO : 1;
		if (ping_ms_left(deadline) == 0)
			return 0;
		r = poll(p, sigfd >= 0 ? 3 : 2, ping_ms_left(deadline));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		if (sigfd >= 0 && (p[2].revents & POLLIN))
			return -EINTR;
		if (p[0].revents & POLLIN) {
			struct ibv_cq *cq;
			void *cq_ctx;

			if (ibv_get_cq_event(c->cc, &cq, &cq_ctx) == 0)
				ibv_ack_cq_events(cq, 1);
		}
		if (p[1].revents & POLLIN) {
			if (rdma_get_cm_event(ch, &ev))
				return -errno;
			if (cm_ev)
				*cm_ev = ev;
			else
				rdma_ack_cm_event(ev);
			return -EPIPE;
		}
	}
}

static uint8_t driver_code(const char *kind)
{
	if (!kind)
		return PING_DRV_UNKNOWN;
	if (!strcmp(kind, "bundled"))
		return PING_DRV_BUNDLED;
	return PING_DRV_INTREE;
}

/* This side's facts for the device RDMA CM bound `id` to. */
void ping_gather_facts(struct rxectl *ctx, struct ping_conn *c)
{
	struct ping_facts *f = &c->local;
	const char *name = ibv_get_device_name(c->id->verbs->device);
	struct rxe_dev *devs = NULL;
	struct ibv_port_attr pa;
	size_t n = 0;

	memset(f, 0, sizeof(*f));
	snprintf(f->version, sizeof(f->version), "%s", RXECTL_VERSION);
	snprintf(f->device, sizeof(f->device), "%s", name ? name : "?");
	f->driver = PING_DRV_OTHER;
	if (ibv_query_port(c->id->verbs, c->id->port_num, &pa) == 0)
		f->active_mtu = (uint16_t)verbs_mtu_bytes(pa.active_mtu);
	memcpy(f->gid, &c->id->route.addr.addr.ibaddr.sgid, 16);
	if (name && rxe_list(ctx, &devs, &n) == 0) {
		const struct rxe_dev *d = rxe_find_by_name(devs, n, name);

		if (d) {
			struct rxe_details det;

			rxe_describe(ctx, d, &det);
			f->driver = driver_code(det.driver);
			if (det.have_netdev) {
				f->netdev_mtu = (uint16_t)(det.netdev.mtu > 65535 ? 65535 :
							   det.netdev.mtu);
				snprintf(c->netdev, sizeof(c->netdev), "%s", det.netdev.name);
			}
			rxe_details_free(&det);
		}
	} else {
		f->driver = PING_DRV_UNKNOWN;
	}
	free(devs);
}

void ping_device_counters(struct rxectl *ctx, const char *device, struct ping_counters *out)
{
	struct rxe_dev *devs = NULL;
	const struct rxe_dev *d;
	struct rxe_stats *st = calloc(1, sizeof(*st));
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < PING_N_COUNTERS; i++)
		out->v[i] = PING_COUNTER_UNKNOWN;	/* also what a listener sends when it has none */
	if (st && device && rxe_list(ctx, &devs, &n) == 0 &&
	    (d = rxe_find_by_name(devs, n, device)) && rxe_stats_read(ctx, d, st) == 0) {
		out->known = true;
		for (size_t i = 0; i < PING_N_COUNTERS; i++) {
			bool found;
			unsigned long long v = rxe_stats_value(st, ping_counter_names[i], &found);

			out->v[i] = found ? v : PING_COUNTER_UNKNOWN;
		}
	}
	free(devs);
	free(st);
}

int ping_conn_setup(struct ping_conn *c, uint32_t size)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};
	size_t len = 2 * (size_t)size + CTRL_AREA;

	c->size = size;
	c->pd = ibv_alloc_pd(c->id->verbs);
	if (!c->pd)
		return -errno;
	c->cc = ibv_create_comp_channel(c->id->verbs);
	if (!c->cc)
		return -errno;
	c->cq = ibv_create_cq(c->id->verbs, 32, NULL, c->cc, 0);
	if (!c->cq)
		return -errno;
	qa.send_cq = qa.recv_cq = c->cq;
	if (rdma_create_qp(c->id, c->pd, &qa))
		return -errno;
	c->qp = true;
	c->buf = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	if (!c->buf)
		return -ENOMEM;
	memset(c->buf, 0, len);
	c->mr = ibv_reg_mr(c->pd, c->buf, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!c->mr)
		return -errno;
	return 0;
}

void ping_conn_teardown(struct ping_conn *c)
{
	if (c->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	free(c->buf);
	if (c->id)
		rdma_destroy_id(c->id);
	memset(c, 0, sizeof(*c));
}


int ping_post_recv(struct ping_conn *c, uint8_t *at, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)at, len, c->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad) ? -errno : 0;
}

int ping_post_send(struct ping_conn *c, enum ibv_wr_opcode opc, uint8_t *at, uint32_t len,
		   uint32_t imm)
{
	struct ibv_sge sge = { (uintptr_t)at, len, c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1, .opcode = opc,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (opc == IBV_WR_SEND_WITH_IMM)
		wr.imm_data = htonl(imm);
	if (opc == IBV_WR_RDMA_WRITE || opc == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = c->raddr;
		wr.wr.rdma.rkey = c->rkey;
	}
	return ibv_post_send(c->id->qp, &wr, &bad) ? -errno : 0;
}

int ping_block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, old))
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}
