// SPDX-License-Identifier: GPL-2.0
/* cmd_ping.c - `rxectl ping`: an RDMA CM client and listener that exchange facts, sweep sizes, diagnose. */
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
#include "output.h"
#include "ping.h"
#include "rxe.h"
#include "rxectl.h"
#include "version.h"
#include "escape.h"
#include "util.h"

#define CTRL_AREA 64	/* after the two data halves: [0,16) send, [32,48) receive */

struct ping_opts {
	bool listen;
	const char *target;		/* HOST, or the listener's DEVICE|ADDRESS */
	uint16_t port;
	unsigned int count;
	unsigned int timeout;		/* seconds, every wait */
	uint32_t *sizes;
	size_t n_sizes;
};

/* One connection's verbs resources.  buf = [ a | b | ctrl ], each half `size` bytes:
 * client: a = what it sends/writes, b = what it receives/reads;
 * listener: a = where messages arrive, b = the RDMA target it advertises. */
struct ping_conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint32_t size;
	bool qp;
	uint64_t raddr;
	uint32_t rkey;
	struct ping_facts local, peer;
	char netdev[IF_NAMESIZE];
};

static int ms_left(int64_t deadline)
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
static int wait_cm(struct rdma_event_channel *ch, int sigfd, int64_t deadline,
		   struct rdma_cm_event **ev)
{
	for (;;) {
		struct pollfd p[2] = { { ch->fd, POLLIN, 0 }, { sigfd, POLLIN, 0 } };
		int t = deadline < 0 ? -1 : ms_left(deadline);
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
static int wait_wc(struct ping_conn *c, struct rdma_event_channel *ch, int sigfd, int64_t deadline,
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
		if (ms_left(deadline) == 0)
			return 0;
		r = poll(p, sigfd >= 0 ? 3 : 2, ms_left(deadline));
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
static void gather_facts(struct rxectl *ctx, struct ping_conn *c)
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

static int conn_setup(struct ping_conn *c, uint32_t size)
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

static void conn_teardown(struct ping_conn *c)
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

static uint8_t *half_a(struct ping_conn *c) { return c->buf; }
static uint8_t *half_b(struct ping_conn *c) { return c->buf + c->size; }
static uint8_t *ctrl_tx(struct ping_conn *c) { return c->buf + 2 * (size_t)c->size; }
static uint8_t *ctrl_rx(struct ping_conn *c) { return ctrl_tx(c) + 32; }

static int post_recv(struct ping_conn *c, uint8_t *at, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)at, len, c->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad) ? -errno : 0;
}

static int post_send(struct ping_conn *c, enum ibv_wr_opcode opc, uint8_t *at, uint32_t len,
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

static int block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, old))
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* ---------------------------------------------------------------- client */

struct client {
	struct rxectl *ctx;
	const struct ping_opts *o;
	struct rdma_event_channel *ch;
	struct ping_conn c;
	struct ping_failure fail;
	char addr[INET6_ADDRSTRLEN];
	char reject[160];
	char fw[256];
	uint32_t passed_size;
};

/* How one operation ended: fills the failure and returns false. */
static bool op_failed(struct client *cl, const char *op, uint32_t size, enum ping_result res,
		      const struct ibv_wc *wc, int err)
{
	struct ping_failure *f = &cl->fail;

	f->stage = PING_STAGE_TRANSFER;
	f->op = op;
	f->size = size;
	f->passed_size = cl->passed_size;
	f->result = res;
	f->err = err;
	if (wc) {
		f->wc_status = wc->status;
		f->wc_status_str = ibv_wc_status_str(wc->status);
	}
	return false;
}

/* Wait for `n` completions; the receive one (if any) is copied to *rwc. */
static bool reap(struct client *cl, const char *op, uint32_t size, int n, struct ibv_wc *rwc)
{
	int64_t deadline = mono_ns() + (int64_t)cl->o->timeout * 1000000000;

	while (n > 0) {
		struct ibv_wc wc;
		int r = wait_wc(&cl->c, cl->ch, -1, deadline, &wc, NULL);

		if (r == 0)
			return op_failed(cl, op, size, PING_RES_TIMEOUT, NULL, 0);
		if (r == -EPIPE)
			return op_failed(cl, op, size, PING_RES_PEER_GONE, NULL, 0);
		if (r < 0)
			return op_failed(cl, op, size, PING_RES_LOCAL, NULL, r);
		if (wc.status != IBV_WC_SUCCESS)
			return op_failed(cl, op, size, PING_RES_WC_ERROR, &wc, 0);
		if (wc.opcode == IBV_WC_RECV && rwc)
			*rwc = wc;
		n--;
	}
	return true;
}

/* A control exchange: send (op, size, seed), wait for the STATUS reply. */
static bool control(struct client *cl, const char *op, uint32_t size, uint32_t opcode,
		    uint32_t seed, uint32_t *status)
{
	struct ping_ctrl q = { opcode, size, seed, 0 }, a;
	struct ibv_wc wc;
	int r;

	ping_ctrl_encode(&q, ctrl_tx(&cl->c));
	r = post_recv(&cl->c, ctrl_rx(&cl->c), PING_CTRL_LEN);
	if (r == 0)
		r = post_send(&cl->c, IBV_WR_SEND_WITH_IMM, ctrl_tx(&cl->c), PING_CTRL_LEN, opcode);
	if (r < 0)
		return op_failed(cl, op, size, PING_RES_LOCAL, NULL, r);
	if (!reap(cl, op, size, 2, &wc))
		return false;
	ping_ctrl_decode(ctrl_rx(&cl->c), &a);
	*status = a.status;
	return true;
}

/* One operation of `size` bytes; *ns gets its latency.  False with cl->fail set. */
static bool one_op(struct client *cl, const char *op, uint32_t size, uint32_t seed, int64_t *ns)
{
	struct ping_conn *c = &cl->c;
	struct ibv_wc wc;
	uint32_t st = 0;
	int64_t t0;
	long bad;
	int r;

	if (!strcmp(op, "send")) {
		ping_pattern_fill(half_a(c), size, seed);
		memset(half_b(c), 0, size);
		r = post_recv(c, half_b(c), c->size);
		t0 = mono_ns();
		if (r == 0)
			r = post_send(c, IBV_WR_SEND_WITH_IMM, half_a(c), size, PING_OP_ECHO);
		if (r < 0)
			return op_failed(cl, op, size, PING_RES_LOCAL, NULL, r);
		if (!reap(cl, op, size, 2, &wc))
			return false;
		*ns = mono_ns() - t0;
		bad = wc.byte_len != size ? (long)(wc.byte_len < size ? wc.byte_len : size) :
			ping_pattern_check(half_b(c), size, seed);
	} else if (!strcmp(op, "write")) {
		ping_pattern_fill(half_a(c), size, seed);
		t0 = mono_ns();
		r = post_send(c, IBV_WR_RDMA_WRITE, half_a(c), size, 0);
		if (r < 0)
			return op_failed(cl, op, size, PING_RES_LOCAL, NULL, r);
		if (!reap(cl, op, size, 1, NULL))
			return false;
		*ns = mono_ns() - t0;
		if (!control(cl, op, size, PING_OP_VERIFY, seed, &st))
			return false;
		bad = st ? (long)st - 1 : -1;
	} else {
		if (!control(cl, op, size, PING_OP_FILL, seed, &st))
			return false;
		memset(half_b(c), 0, size);
		t0 = mono_ns();
		r = post_send(c, IBV_WR_RDMA_READ, half_b(c), size, 0);
		if (r < 0)
			return op_failed(cl, op, size, PING_RES_LOCAL, NULL, r);
		if (!reap(cl, op, size, 1, NULL))
			return false;
		*ns = mono_ns() - t0;
		bad = ping_pattern_check(half_b(c), size, seed);
	}
	if (bad >= 0) {
		op_failed(cl, op, size, PING_RES_MISMATCH, NULL, 0);
		cl->fail.bad_offset = bad;
		return false;
	}
	return true;
}

static void print_facts(struct output *o, const char *key, const struct ping_facts *f)
{
	char gid[INET6_ADDRSTRLEN];

	ping_gid_str(f->gid, gid, sizeof(gid));
	out_obj_begin(o, key);
	out_str(o, "rxectl_version", NULL, f->version);
	out_str(o, "device", NULL, f->device);
	out_str(o, "driver", NULL, ping_driver_str(f->driver));
	out_str(o, "gid", NULL, gid);
	out_uint(o, "netdev_mtu", NULL, f->netdev_mtu);
	out_uint(o, "active_mtu", NULL, f->active_mtu);
	out_obj_end(o);
}

static void print_facts_text(struct output *o, const struct client *cl)
{
	const struct ping_facts *l = &cl->c.local, *p = &cl->c.peer;
	char lg[INET6_ADDRSTRLEN], pg[INET6_ADDRSTRLEN], ln[16], pn[16], la[16], pa[16];
	char pv[4 * sizeof(p->version)], pd[4 * sizeof(p->device)];

	if (output_is_json(o))
		return;
	/* the peer's strings came over the network: no control characters to the terminal */
	str_escape(p->version, pv, sizeof(pv));
	str_escape(p->device, pd, sizeof(pd));
	ping_gid_str(l->gid, lg, sizeof(lg));
	ping_gid_str(p->gid, pg, sizeof(pg));
#define NUM(buf, v) (snprintf(buf, sizeof(buf), v ? "%u" : "unknown", v), buf)
	out_text(o, "%-16s %-24s %s\n", "", "this side", cl->o->target);
	out_text(o, "%-16s %-24s %s\n", "rxectl", l->version, pv);
	out_text(o, "%-16s %-24s %s\n", "device", l->device, pd);
	out_text(o, "%-16s %-24s %s\n", "driver", ping_driver_str(l->driver),
		 ping_driver_str(p->driver));
	out_text(o, "%-16s %-24s %s\n", "GID", lg, pg);
	out_text(o, "%-16s %-24s %s\n", "netdev MTU", NUM(ln, l->netdev_mtu), NUM(pn, p->netdev_mtu));
	out_text(o, "%-16s %-24s %s\n", "RoCE active MTU", NUM(la, l->active_mtu),
		 NUM(pa, p->active_mtu));
#undef NUM
	out_text(o, "\n%8s  %-5s %9s %9s %9s %10s  %s\n", "size", "op", "min us", "avg us",
		 "max us", "MB/s", "verified");
	fflush(stdout);
	if (l->active_mtu && p->active_mtu && l->active_mtu < p->active_mtu)
		log_warn("the RoCE active MTUs differ: %u here, %u on %s. This side opens the "
			 "connection, so it uses %u-byte packets and may pass; connections %s opens to "
			 "this host use %u-byte packets that this side's netdev (MTU %u) does not "
			 "take. Give both netdevs the same MTU.", l->active_mtu, p->active_mtu,
			 cl->o->target, l->active_mtu, cl->o->target, p->active_mtu, l->netdev_mtu);
	else if (l->active_mtu && p->active_mtu && l->active_mtu != p->active_mtu)
		log_warn("the RoCE active MTUs differ: %u here, %u on %s; messages larger than %u "
			 "bytes may not get through.", l->active_mtu, p->active_mtu, cl->o->target,
			 p->active_mtu);
}

static void print_row(struct output *o, const struct ping_row *r)
{
	char sz[16];

	ping_size_str(r->size, sz, sizeof(sz));
	out_obj_begin(o, NULL);
	out_str(o, "op", NULL, r->op);
	out_uint(o, "size", NULL, r->size);
	out_uint(o, "count", NULL, r->count);
	out_uint(o, "latency_min_ns", NULL, r->lat_min_ns);
	out_uint(o, "latency_avg_ns", NULL, r->lat_avg_ns);
	out_uint(o, "latency_max_ns", NULL, r->lat_max_ns);
	out_uint(o, "bandwidth_bytes_per_sec", NULL, r->bandwidth_bps);
	out_bool(o, "passed", NULL, r->passed);
	out_obj_end(o);
	if (r->count)
		out_text(o, "%8s  %-5s %9.1f %9.1f %9.1f %10.2f  %s\n", sz, r->op,
			 r->lat_min_ns / 1e3, r->lat_avg_ns / 1e3, r->lat_max_ns / 1e3,
			 r->bandwidth_bps / 1e6, r->passed ? "yes" : "FAILED");
	else
		out_text(o, "%8s  %-5s %9s %9s %9s %10s  %s\n", sz, r->op, "-", "-", "-", "-",
			 "FAILED");
	fflush(stdout);
}

/* The sweep: sizes ascending, for each send, write, read.  True when all passed. */
static bool sweep(struct client *cl)
{
	static const char *const ops[] = { "send", "write", "read" };
	struct output *o = cl->ctx->out;
	uint32_t seed = (uint32_t)mono_ns();

	out_arr_begin(o, "results");
	for (size_t s = 0; s < cl->o->n_sizes; s++) {
		uint32_t size = cl->o->sizes[s];

		for (size_t k = 0; k < 3; k++) {
			struct ping_row r = { .op = ops[k], .size = size, .lat_min_ns = UINT64_MAX };
			uint64_t total = 0;
			bool ok = true;

			for (unsigned int i = 0; i < cl->o->count && ok; i++) {
				int64_t ns = 0;

				ok = one_op(cl, ops[k], size, ++seed, &ns);
				if (!ok)
					break;
				r.count++;
				total += (uint64_t)ns;
				if ((uint64_t)ns < r.lat_min_ns)
					r.lat_min_ns = (uint64_t)ns;
				if ((uint64_t)ns > r.lat_max_ns)
					r.lat_max_ns = (uint64_t)ns;
			}
			if (!r.count)
				r.lat_min_ns = 0;
			else
				r.lat_avg_ns = total / r.count;
			if (total)
				r.bandwidth_bps = (uint64_t)((double)size * r.count * 1e9 / (double)total);
			r.passed = ok;
			print_row(o, &r);
			if (!ok) {
				out_arr_end(o);
				return false;
			}
		}
		cl->passed_size = size;
	}
	out_arr_end(o);
	return true;
}

/* A UDP datagram to HOST:4791: does the peer answer "port unreachable"? */
static enum ping_probe probe_udp4791(const struct sockaddr *dst, socklen_t len)
{
	struct sockaddr_storage ss;
	enum ping_probe res = PING_PROBE_SILENT;
	int fd;

	memcpy(&ss, dst, len);
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons(4791);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(4791);
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return PING_PROBE_UNKNOWN;
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		close(fd);
		return PING_PROBE_UNKNOWN;
	}
	/* One byte: too short to be a RoCE packet, so an rxe there drops it. */
	for (int i = 0; i < 3 && res == PING_PROBE_SILENT; i++) {
		struct pollfd p = { fd, POLLIN, 0 };
		char b = 0;

		if (send(fd, &b, 1, 0) < 0 && errno == ECONNREFUSED) {
			res = PING_PROBE_REFUSED;
			break;
		}
		if (poll(&p, 1, 400) > 0 && recv(fd, &b, 1, MSG_DONTWAIT) < 0 &&
		    errno == ECONNREFUSED)
			res = PING_PROBE_REFUSED;
	}
	close(fd);
	return res;
}

/* Wait for one CM event of the expected type; anything else is the failure. */
static int expect_cm(struct client *cl, enum rdma_cm_event_type want, int64_t deadline,
		     struct rdma_cm_event **ev)
{
	int r = wait_cm(cl->ch, -1, deadline, ev);

	if (r == 0) {
		cl->fail.timed_out = true;
		return -ETIMEDOUT;
	}
	if (r < 0) {
		cl->fail.err = r;
		return r;
	}
	if ((*ev)->event == want)
		return 0;
	log_debug("ping: RDMA CM event %s, status %d", rdma_event_str((*ev)->event),
		  (*ev)->status);
	cl->fail.err = (*ev)->status < 0 ? (*ev)->status : -EIO;
	if ((*ev)->event == RDMA_CM_EVENT_REJECTED) {
		const uint8_t *pd = (*ev)->param.conn.private_data;
		size_t n = (*ev)->param.conn.private_data_len;

		cl->fail.reject_reason = (*ev)->status;
		if (pd && n > 2 && pd[0] == 'R' && pd[1] == 'X') {
			snprintf(cl->reject, sizeof(cl->reject), "%.*s", (int)(n - 2), pd + 2);
			cl->fail.reject_text = cl->reject;
		}
	}
	if ((*ev)->event == RDMA_CM_EVENT_UNREACHABLE ||
	    (*ev)->event == RDMA_CM_EVENT_CONNECT_ERROR)
		cl->fail.err = (*ev)->status < 0 ? (*ev)->status : -ETIMEDOUT;
	rdma_ack_cm_event(*ev);
	*ev = NULL;
	return -EIO;
}

static int client_connect(struct client *cl, struct addrinfo *ai)
{
	struct rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1,
				      .retry_count = 7, .rnr_retry_count = 7 };
	uint8_t pd[PING_FACTS_LEN];
	int tmo = (int)cl->o->timeout * 1000;
	struct rdma_cm_event *ev;
	int64_t deadline;
	uint32_t maxsz = cl->o->sizes[cl->o->n_sizes - 1];

	cl->fail.stage = PING_STAGE_SETUP;
	cl->ch = rdma_create_event_channel();
	if (!cl->ch || rdma_create_id(cl->ch, &cl->c.id, NULL, RDMA_PS_TCP)) {
		cl->fail.err = -errno;
		return -1;
	}
	cl->fail.stage = PING_STAGE_ADDR;
	deadline = mono_ns() + (int64_t)(tmo + 1000) * 1000000;
	if (rdma_resolve_addr(cl->c.id, NULL, ai->ai_addr, tmo)) {
		cl->fail.err = -errno;
		return -1;
	}
	if (expect_cm(cl, RDMA_CM_EVENT_ADDR_RESOLVED, deadline, &ev))
		return -1;
	rdma_ack_cm_event(ev);
	cl->fail.stage = PING_STAGE_ROUTE;
	deadline = mono_ns() + (int64_t)(tmo + 1000) * 1000000;
	if (rdma_resolve_route(cl->c.id, tmo)) {
		cl->fail.err = -errno;
		return -1;
	}
	if (expect_cm(cl, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, &ev))
		return -1;
	rdma_ack_cm_event(ev);

	cl->fail.stage = PING_STAGE_RESOURCES;
	gather_facts(cl->ctx, &cl->c);
	cl->fail.local_netdev = *cl->c.netdev ? cl->c.netdev : NULL;
	cl->c.local.buf_size = maxsz < CTRL_AREA ? CTRL_AREA : maxsz;
	cl->fail.err = conn_setup(&cl->c, cl->c.local.buf_size);
	if (cl->fail.err)
		return -1;
	cl->fail.local = cl->c.local;

	cl->fail.stage = PING_STAGE_CONNECT;
	ping_facts_encode(&cl->c.local, pd, sizeof(pd));
	cp.private_data = pd;
	cp.private_data_len = sizeof(pd);
	deadline = mono_ns() + (int64_t)tmo * 1000000;
	if (rdma_connect(cl->c.id, &cp)) {
		cl->fail.err = -errno;
		return -1;
	}
	if (expect_cm(cl, RDMA_CM_EVENT_ESTABLISHED, deadline, &ev))
		return -1;
	if (ev->param.conn.private_data_len < PING_REP_LEN ||
	    ping_facts_decode(ev->param.conn.private_data, ev->param.conn.private_data_len,
			      &cl->c.peer)) {
		rdma_ack_cm_event(ev);
		cl->fail.reject_text = "it does not speak the rxectl ping protocol (another "
			"program listens on that port, or another rxectl version).";
		return -1;
	} else {
		const uint8_t *p = (const uint8_t *)ev->param.conn.private_data + PING_FACTS_LEN;

		cl->c.raddr = (uint64_t)ntohl(*(const uint32_t *)(const void *)p) << 32 |
			ntohl(*(const uint32_t *)(const void *)(p + 4));
		cl->c.rkey = ntohl(*(const uint32_t *)(const void *)(p + 8));
	}
	rdma_ack_cm_event(ev);
	cl->fail.peer = cl->c.peer;
	cl->fail.have_facts = true;
	return 0;
}

static int run_client(struct rxectl *ctx, const struct ping_opts *o)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct output *out = ctx->out;
	struct client cl = { .ctx = ctx, .o = o };
	struct ping_diag d;
	char port[8];
	bool ok = false;
	int r;

	cl.fail.host = o->target;
	cl.fail.stage = PING_STAGE_NAME;
	snprintf(port, sizeof(port), "%u", o->port);
	out_obj_begin(out, NULL);
	out_str(out, "host", NULL, o->target);
	out_uint(out, "port", NULL, o->port);
	r = getaddrinfo(o->target, port, &hints, &ai);
	if (r) {
		cl.fail.err = r == EAI_SYSTEM ? -errno : -EHOSTUNREACH;
		cl.fail.detail = gai_strerror(r);
	} else {
		if (ai->ai_family == AF_INET)
			inet_ntop(AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr,
				  cl.addr, sizeof(cl.addr));
		else
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr,
				  cl.addr, sizeof(cl.addr));
		cl.fail.addr = cl.addr;
		out_str(out, "address", NULL, cl.addr);
		if (client_connect(&cl, ai) == 0) {
			out_text(out, "connected to %s (%s) port %u over %s\n\n", o->target, cl.addr,
				 o->port, cl.c.local.device);
			print_facts(out, "local", &cl.c.local);
			print_facts(out, "peer", &cl.c.peer);
			print_facts_text(out, &cl);
			ok = sweep(&cl);
		}
	}
	if (!ok && cl.fail.stage == PING_STAGE_CONNECT && !cl.fail.reject_reason &&
	    !cl.fail.reject_text) {
		cl.fail.udp_probe = probe_udp4791(ai->ai_addr, ai->ai_addrlen);
		cl.fail.local_fw = ping_local_firewall(cl.fw, sizeof(cl.fw));
		cl.fail.local_fw_text = cl.fw;
	}
	if (ok) {
		char lo[16], hi[16];

		ping_size_str(o->sizes[0], lo, sizeof(lo));
		ping_size_str(o->sizes[o->n_sizes - 1], hi, sizeof(hi));
		out_str(out, "result", NULL, "pass");
		out_text(out, "\nsend, write and read passed at %zu size%s (%s to %s bytes, %u each), "
			 "every byte verified.\n", o->n_sizes, o->n_sizes == 1 ? "" : "s", lo, hi,
			 o->count);
	} else {
		ping_diagnose(&cl.fail, &d);
		out_str(out, "result", NULL, "fail");
		out_obj_begin(out, "diagnosis");
		out_str(out, "layer", NULL, d.layer);
		out_str(out, "message", NULL, d.message);
		out_obj_end(out);
		if (!output_is_json(out))
			fflush(stdout);
		log_error(0, "%s", d.message);
	}
	out_obj_end(out);
	if (cl.c.id && cl.c.qp)
		rdma_disconnect(cl.c.id);
	conn_teardown(&cl.c);
	if (cl.ch)
		rdma_destroy_event_channel(cl.ch);
	if (ai)
		freeaddrinfo(ai);
	return ok ? RXECTL_OK : RXECTL_FAIL;
}

/* -------------------------------------------------------------- listener */

struct listener {
	struct rxectl *ctx;
	const struct ping_opts *o;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *lid;
	int sigfd;
	bool stop;
	unsigned int served;
};

static void reject(struct rdma_cm_id *id, const char *why)
{
	char pd[148];
	int n = snprintf(pd, sizeof(pd), "RX%s", why);

	rdma_reject(id, pd, (uint8_t)(n < (int)sizeof(pd) ? n + 1 : (int)sizeof(pd)));
}

static const char *peer_str(struct rdma_cm_id *id, char *buf, size_t len)
{
	struct sockaddr *sa = rdma_get_peer_addr(id);

	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)sa)->sin_addr, buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)sa)->sin6_addr, buf, (socklen_t)len);
	return buf;
}

/* Any CM event while serving: another client is turned away; returns true when ours ended. */
static bool serve_cm_event(struct listener *ls, struct ping_conn *c, struct rdma_cm_event *ev)
{
	bool ours = ev->id == c->id;
	bool end = ours && (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
			    ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL);

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && !ours) {
		struct rdma_cm_id *other = ev->id;

		reject(other, "it is busy with another client; try again in a moment.");
		rdma_ack_cm_event(ev);
		rdma_destroy_id(other);
		return false;
	}
	rdma_ack_cm_event(ev);
	return end;
}

/* Serve one client: messages until it disconnects, vanishes, or a signal. */
static void serve(struct listener *ls, struct ping_conn *c, const char *who)
{
	const char *why = "disconnected";
	unsigned long msgs = 0;
	int r;

	if (post_recv(c, half_a(c), c->size))
		return;
	for (;;) {
		struct rdma_cm_event *ev = NULL;
		struct ibv_wc wc;
		struct ping_ctrl q, a = { PING_OP_STATUS, 0, 0, 0 };
		uint32_t op;

		r = wait_wc(c, ls->ch, ls->sigfd,
			    mono_ns() + (int64_t)ls->o->timeout * 3 * 1000000000, &wc, &ev);
		if (r == -EPIPE) {
			if (serve_cm_event(ls, c, ev))
				break;
			continue;
		}
		if (r == -EINTR) {
			ls->stop = true;
			why = "stopped by a signal";
			break;
		}
		if (r == 0) {
			why = "went silent (no message within 3 x --timeout); dropped it";
			break;
		}
		if (r < 0) {
			why = "lost (completion queue error)";
			break;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			why = ibv_wc_status_str(wc.status);
			break;
		}
		if (wc.opcode != IBV_WC_RECV)
			continue;
		msgs++;
		op = wc.wc_flags & IBV_WC_WITH_IMM ? ntohl(wc.imm_data) : 0;
		if (op == PING_OP_ECHO) {
			uint32_t len = wc.byte_len;

			/* The echo reads `a` now; the next message cannot land before the
			 * client has it, so reposting the receive into `a` is safe. */
			r = post_recv(c, half_a(c), c->size);
			if (r == 0)
				r = post_send(c, IBV_WR_SEND_WITH_IMM, half_a(c), len, PING_OP_ECHO);
		} else if (op == PING_OP_VERIFY || op == PING_OP_FILL) {
			ping_ctrl_decode(half_a(c), &q);
			if (q.size > c->size) {
				a.status = 1;
			} else if (op == PING_OP_FILL) {
				ping_pattern_fill(half_b(c), q.size, q.seed);
			} else {
				long bad = ping_pattern_check(half_b(c), q.size, q.seed);

				a.status = bad < 0 ? 0 : (uint32_t)bad + 1;
			}
			ping_ctrl_encode(&a, ctrl_tx(c));
			r = post_recv(c, half_a(c), c->size);
			if (r == 0)
				r = post_send(c, IBV_WR_SEND_WITH_IMM, ctrl_tx(c), PING_CTRL_LEN,
					      PING_OP_STATUS);
		} else {
			why = "sent a message this listener does not understand";
			break;
		}
		if (r < 0) {
			why = "lost (posting failed)";
			break;
		}
	}
	out_text(ls->ctx->out, "%s: %s after %lu message%s\n", who, why, msgs, msgs == 1 ? "" : "s");
	fflush(stdout);
}

/* One CONNECT_REQUEST: check the client's facts, set up, accept, serve. */
static void handle_request(struct listener *ls, struct rdma_cm_event *ev)
{
	struct ping_conn c = { .id = ev->id };
	uint8_t pd[PING_REP_LEN];
	struct ping_facts cf;
	struct rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1,
				      .retry_count = 7, .rnr_retry_count = 7 };
	struct rdma_cm_event *e2;
	char who[INET6_ADDRSTRLEN];
	uint64_t addr;
	int r = ping_facts_decode(ev->param.conn.private_data, ev->param.conn.private_data_len, &cf);

	peer_str(c.id, who, sizeof(who));
	rdma_ack_cm_event(ev);
	if (r) {
		reject(c.id, r == -EPROTO ? "it runs another version of the rxectl ping protocol." :
		       "the request is not from rxectl ping.");
		out_text(ls->ctx->out, "%s: refused (not an rxectl ping client)\n", who);
		rdma_destroy_id(c.id);
		return;
	}
	if (cf.buf_size > PING_MAX_SIZE || cf.buf_size < CTRL_AREA) {
		reject(c.id, "the message size it asks for is out of range.");
		rdma_destroy_id(c.id);
		return;
	}
	gather_facts(ls->ctx, &c);
	c.local.buf_size = cf.buf_size;
	c.peer = cf;
	r = conn_setup(&c, cf.buf_size);
	if (r) {
		log_msg(LOG_ERR, "%s: cannot set up the connection here: %s; check `ulimit -l`.",
			who, strerror(-r));
		reject(c.id, "the listener cannot allocate resources for it (see its messages).");
		conn_teardown(&c);
		return;
	}
	ping_facts_encode(&c.local, pd, sizeof(pd));
	addr = (uintptr_t)half_b(&c);
	*(uint32_t *)(void *)(pd + PING_FACTS_LEN) = htonl((uint32_t)(addr >> 32));
	*(uint32_t *)(void *)(pd + PING_FACTS_LEN + 4) = htonl((uint32_t)addr);
	*(uint32_t *)(void *)(pd + PING_FACTS_LEN + 8) = htonl(c.mr->rkey);
	cp.private_data = pd;
	cp.private_data_len = sizeof(pd);
	if (rdma_accept(c.id, &cp)) {
		log_msg(LOG_ERR, "%s: accepting the connection failed: %s.", who, strerror(errno));
		conn_teardown(&c);
		return;
	}
	/* ESTABLISHED; other clients knocking meanwhile are turned away. */
	const char *cm_why = "RDMA CM error";

	for (;;) {
		r = wait_cm(ls->ch, ls->sigfd, mono_ns() + (int64_t)ls->o->timeout * 1000000000, &e2);
		if (r <= 0)
			break;
		bool mine = e2->id == c.id;

		if (mine && e2->event == RDMA_CM_EVENT_ESTABLISHED) {
			rdma_ack_cm_event(e2);
			break;
		}
		/* Anything else about ours (REJECTED, CONNECT_ERROR, ...) ends it. */
		if (mine && (e2->event == RDMA_CM_EVENT_CONNECT_ERROR ||
			     e2->event == RDMA_CM_EVENT_UNREACHABLE))
			cm_why = "it never confirmed our reply; inbound UDP 4791 may be filtered on "
				 "its side";
		if (serve_cm_event(ls, &c, e2) || mine) {
			r = -EIO;
			break;
		}
	}
	if (r == -EINTR)
		ls->stop = true;
	if (r <= 0) {
		out_text(ls->ctx->out, "%s: the connection did not come up (%s)\n", who,
			 r == 0 ? "no confirmation before the timeout" : r == -EINTR ? "signal" :
			 cm_why);
	} else {
		char dev[4 * sizeof(cf.device)];

		out_text(ls->ctx->out, "%s: connected (%s, %s, netdev MTU %u, RoCE MTU %u)\n", who,
			 str_escape(cf.device, dev, sizeof(dev)), ping_driver_str(cf.driver),
			 cf.netdev_mtu, cf.active_mtu);
		fflush(stdout);
		serve(ls, &c, who);
		ls->served++;
	}
	fflush(stdout);
	rdma_disconnect(c.id);
	conn_teardown(&c);
}

/* DEVICE|ADDRESS to the address to bind: an IP as is; an rxe device's netdev address. */
static int listen_addr(struct rxectl *ctx, const char *target, struct sockaddr_storage *ss)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct rxe_dev *devs = NULL;
	const struct rxe_dev *d;
	struct rxe_details det;
	size_t n = 0;
	int ret = RXECTL_USAGE;

	memset(ss, 0, sizeof(*ss));
	s4->sin_family = AF_INET;
	if (!target)
		return 0;
	if (inet_pton(AF_INET, target, &s4->sin_addr) == 1)
		return 0;
	if (inet_pton(AF_INET6, target, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		return 0;
	}
	if (rxe_list(ctx, &devs, &n) < 0)
		return RXECTL_FAIL;
	d = rxe_find_by_name(devs, n, target);
	if (!d) {
		free(devs);
		return rxectl_usage_error("ping", "'%s' is neither an IP address nor an rxe device; "
					  "`rxectl status` lists the devices.", target);
	}
	rxe_describe(ctx, d, &det);
	for (size_t i = 0; i < det.n_addrs && ret; i++)
		if (det.addrs[i].family == AF_INET) {
			memcpy(&s4->sin_addr, det.addrs[i].addr, 4);
			ret = 0;
		}
	for (size_t i = 0; i < det.n_addrs && ret; i++)
		if (det.addrs[i].family == AF_INET6) {
			s6->sin6_family = AF_INET6;
			memcpy(&s6->sin6_addr, det.addrs[i].addr, 16);
			ret = 0;
		}
	if (ret)
		ret = log_error(RXECTL_FAIL, "%s sits on %s, which has no IP address to listen on; "
				"add one with `ip addr add ADDRESS/PREFIX dev %s`.", target,
				*d->netdev ? d->netdev : "its netdev", *d->netdev ? d->netdev : "NETDEV");
	rxe_details_free(&det);
	free(devs);
	return ret;
}

static int run_listener(struct rxectl *ctx, const struct ping_opts *o)
{
	struct listener ls = { .ctx = ctx, .o = o, .sigfd = -1 };
	struct sockaddr_storage ss;
	char a[INET6_ADDRSTRLEN];
	sigset_t old;
	int ret, ndev = 0;
	struct ibv_device **list;

	ret = listen_addr(ctx, o->target, &ss);
	if (ret)
		return ret;
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons(o->port);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(o->port);
	ls.ch = rdma_create_event_channel();
	if (!ls.ch)
		return log_error(RXECTL_FAIL, "RDMA CM is not available on this host (%s): load "
				 "rdma_ucm and create an rxe device with `rxectl up NETDEV`.",
				 strerror(errno));
	if (rdma_create_id(ls.ch, &ls.lid, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(ls.lid, (struct sockaddr *)&ss)) {
		ret = log_error(RXECTL_FAIL, "cannot listen on %s port %u: %s%s.",
				o->target ? o->target : "every address", o->port, strerror(errno),
				errno == EADDRINUSE ? " (another listener runs there)" :
				errno == EADDRNOTAVAIL ? " (no RDMA device has that address)" : "");
		goto out;
	}
	if (rdma_listen(ls.lid, 8)) {
		ret = log_error(RXECTL_FAIL, "cannot listen on port %u: %s.", o->port, strerror(errno));
		goto out;
	}
	list = ibv_get_device_list(&ndev);
	if (list)
		ibv_free_device_list(list);
	if (ndev == 0)
		log_warn("there is no RDMA device on this host yet; clients cannot connect until "
			 "one exists (`rxectl up NETDEV`).");
	ls.sigfd = block_signals(&old);
	inet_ntop(ss.ss_family, ss.ss_family == AF_INET ?
		  (void *)&((struct sockaddr_in *)&ss)->sin_addr :
		  (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr, a, sizeof(a));
	out_text(ctx->out, "listening on %s port %u; stop with Ctrl-C\n", a, o->port);
	fflush(stdout);
	while (!ls.stop) {
		struct rdma_cm_event *ev;
		int r = wait_cm(ls.ch, ls.sigfd, -1, &ev);

		if (r == -EINTR)
			break;
		if (r < 0) {
			ret = log_error(RXECTL_FAIL, "waiting for RDMA CM events failed: %s.",
					strerror(-r));
			break;
		}
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			handle_request(&ls, ev);
		else
			rdma_ack_cm_event(ev);
	}
	out_text(ctx->out, "stopped after %u client%s\n", ls.served, ls.served == 1 ? "" : "s");
	out_obj_begin(ctx->out, NULL);
	out_uint(ctx->out, "clients_served", NULL, ls.served);
	out_obj_end(ctx->out);
	/* Consume the signal that stopped us before unblocking, or it would kill us now. */
	for (struct signalfd_siginfo si; read(ls.sigfd, &si, sizeof(si)) == sizeof(si);)
		;
	close(ls.sigfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
out:
	if (ls.lid)
		rdma_destroy_id(ls.lid);
	rdma_destroy_event_channel(ls.ch);
	return ret;
}

/* ------------------------------------------------------------ arguments */

enum { PING_LISTEN = 1, PING_PORT, PING_COUNT, PING_TIMEOUT, PING_SIZES };
const struct opt_spec cmd_ping_opts[] = {
	{ "listen",  0,   NULL,  "wait for clients (on DEVICE or ADDRESS, else on all)", NULL,
	  PING_LISTEN },
	{ "port",    0,   "P",   "RDMA CM port, 1-65535", OPTS_STR(PING_DEFAULT_PORT), PING_PORT },
	{ "count",   'c', "N",   "round trips per message size, 1-1000000 (-c as in ping(8))",
	  OPTS_STR(PING_DEFAULT_COUNT), PING_COUNT },
	{ "timeout", 0,   "SEC", "seconds for every single wait, 1-3600",
	  OPTS_STR(PING_DEFAULT_TIMEOUT), PING_TIMEOUT },
	{ "sizes",   0,   "LIST", "message sizes, e.g. 64,4K,1-1M", PING_DEFAULT_SIZES, PING_SIZES },
	{ NULL },
};

int cmd_ping(struct rxectl *ctx, int argc, char **argv)
{
	struct ping_opts o = { .port = PING_DEFAULT_PORT, .count = PING_DEFAULT_COUNT,
			       .timeout = PING_DEFAULT_TIMEOUT };
	const char *sizes = PING_DEFAULT_SIZES;
	struct opts p;
	char err[160];
	unsigned long v;
	int opt, ret;

	opts_init(&p, ctx, "ping", cmd_ping_opts, argc, argv);
	while ((opt = opts_next(&p)) != OPTS_END) {
		switch (opt) {
		case PING_LISTEN:
			o.listen = true;
			break;
		case PING_PORT:
			if (opts_uint(p.value, 1, 65535, &v))
				return rxectl_usage_error("ping", "%s takes a port number from 1 to "
							  "65535, not '%s'.", p.given, p.value);
			o.port = (uint16_t)v;
			break;
		case PING_COUNT:
			if (opts_uint(p.value, 1, 1000000, &v))
				return rxectl_usage_error("ping", "%s takes a number from 1 to "
							  "1000000, not '%s'.", p.given, p.value);
			o.count = (unsigned int)v;
			break;
		case PING_TIMEOUT:
			if (opts_uint(p.value, 1, 3600, &v))
				return rxectl_usage_error("ping", "%s takes seconds from 1 to "
							  "3600, not '%s'.", p.given, p.value);
			o.timeout = (unsigned int)v;
			break;
		case PING_SIZES:
			sizes = p.value;
			break;
		case OPTS_HELP:
			return RXECTL_OK;
		case OPTS_ERROR:
			return RXECTL_USAGE;
		}
	}
	if (p.npos)
		o.target = argv[1];
	if (p.npos > 1)
		return rxectl_usage_error("ping", "ping takes one HOST (or, with --listen, one DEVICE "
					  "or ADDRESS), but also got '%s'.", argv[2]);
	if (!o.listen && !o.target)
		return rxectl_usage_error("ping", "give the HOST to ping, or --listen on the other "
					  "side.");
	if (ping_parse_sizes(sizes, &o.sizes, &o.n_sizes, err, sizeof(err)))
		return rxectl_usage_error("ping", "--sizes: %s.", err);
	ret = o.listen ? run_listener(ctx, &o) : run_client(ctx, &o);
	free(o.sizes);
	return ret;
}
