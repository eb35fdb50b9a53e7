// SPDX-License-Identifier: GPL-2.0
/* ping_client.c - `rxectl ping HOST`: connect, sweep sizes with send/write/read, verify, diagnose what failed. */
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
#include "rxectl.h"
#include "util.h"
#include "firewall.h"
#include "ping_conn.h"



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
		int r = ping_wait_wc(&cl->c, cl->ch, -1, deadline, &wc, NULL);

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
	r = ping_post_recv(&cl->c, ctrl_rx(&cl->c), PING_CTRL_LEN);
	if (r == 0)
		r = ping_post_send(&cl->c, IBV_WR_SEND_WITH_IMM, ctrl_tx(&cl->c), PING_CTRL_LEN, opcode);
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
		r = ping_post_recv(c, half_b(c), c->size);
		t0 = mono_ns();
		if (r == 0)
			r = ping_post_send(c, IBV_WR_SEND_WITH_IMM, half_a(c), size, PING_OP_ECHO);
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
		r = ping_post_send(c, IBV_WR_RDMA_WRITE, half_a(c), size, 0);
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
		r = ping_post_send(c, IBV_WR_RDMA_READ, half_b(c), size, 0);
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
			ping_print_row(o, &r);
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
	int r = ping_wait_cm(cl->ch, -1, deadline, ev);

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
	ping_gather_facts(cl->ctx, &cl->c);
	cl->fail.local_netdev = *cl->c.netdev ? cl->c.netdev : NULL;
	cl->c.local.buf_size = maxsz < CTRL_AREA ? CTRL_AREA : maxsz;
	cl->fail.err = ping_conn_setup(&cl->c, cl->c.local.buf_size);
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

/*
 * The peer's loss counters, asked on a second RDMA CM request while the first connection still
 * stands (its listener is busy with it): a request whose facts ask for a 0-byte buffer is
 * answered by a reject that carries them (ping.h).  A listener of an older rxectl rejects it
 * with a sentence instead: out->known stays false.
 */
static void query_peer_counters(struct client *cl, const struct sockaddr *dst,
				struct ping_counters *out)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param cp = { .qp_num = 1, .retry_count = 3 };
	struct ping_facts q = cl->c.local;
	struct rdma_cm_id *id = NULL;
	struct rdma_cm_event *ev = NULL;
	uint8_t pd[PING_FACTS_LEN];
	int64_t deadline = mono_ns() + 5 * (int64_t)1000000000;
	int r;

	memset(out, 0, sizeof(*out));
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		goto out;
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)dst, 2000) ||
	    ping_wait_cm(ch, -1, deadline, &ev) <= 0)
		goto out;
	r = ev->event == RDMA_CM_EVENT_ADDR_RESOLVED;
	rdma_ack_cm_event(ev);
	if (!r || rdma_resolve_route(id, 2000) || ping_wait_cm(ch, -1, deadline, &ev) <= 0)
		goto out;
	r = ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED;
	rdma_ack_cm_event(ev);
	q.buf_size = 0;
	ping_facts_encode(&q, pd, sizeof(pd));
	cp.private_data = pd;
	cp.private_data_len = sizeof(pd);
	if (!r || rdma_connect(id, &cp) || ping_wait_cm(ch, -1, deadline, &ev) <= 0)
		goto out;
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		ping_counters_decode(ev->param.conn.private_data, ev->param.conn.private_data_len,
				     out);
	log_debug("ping: counters query: %s, %s", rdma_event_str(ev->event),
		  out->known ? "answered" : "no counters");
	rdma_ack_cm_event(ev);
out:
	if (id)
		rdma_destroy_id(id);
	if (ch)
		rdma_destroy_event_channel(ch);
}

/* A timeout after multi-packet messages passed: both sides' loss counters for the diagnosis. */
static void gather_loss_counters(struct client *cl, const struct ping_counters *before,
				 const struct sockaddr *dst)
{
	struct ping_failure *f = &cl->fail;

	ping_device_counters(cl->ctx, cl->c.local.device, &f->local_ctr);
	for (size_t i = 0; f->local_ctr.known && i < PING_N_COUNTERS; i++)
		if (!before->known || before->v[i] == PING_COUNTER_UNKNOWN)
			f->local_ctr.v[i] = PING_COUNTER_UNKNOWN;
		else if (f->local_ctr.v[i] != PING_COUNTER_UNKNOWN)
			f->local_ctr.v[i] -= before->v[i];
	query_peer_counters(cl, dst, &f->peer_ctr);
}

int ping_run_client(struct rxectl *ctx, const struct ping_opts *o)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct output *out = ctx->out;
	struct client cl = { .ctx = ctx, .o = o };
	struct ping_counters before = { 0 };
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
			ping_print_facts(out, "local", &cl.c.local);
			ping_print_facts(out, "peer", &cl.c.peer);
			ping_print_facts_text(out, &cl);
			ping_device_counters(ctx, cl.c.local.device, &before);
			cl.fail.waited_s = o->timeout;
			ok = sweep(&cl);
			if (!ok && ping_is_loss(&cl.fail))
				gather_loss_counters(&cl, &before, ai->ai_addr);
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
	ping_conn_teardown(&cl.c);
	if (cl.ch)
		rdma_destroy_event_channel(cl.ch);
	if (ai)
		freeaddrinfo(ai);
	return ok ? RXECTL_OK : RXECTL_FAIL;
}

/* This side's firewall for the diagnosis: the same inspection as doctor's firewall.udp4791. */
enum ping_fw ping_local_firewall(char *finding, size_t len)
{
	const struct fw_finding *f;
	struct fw_report r;
	char where[512];

	firewall_inspect(&r);
	f = &r.finding;
	switch (r.state) {
	case FW_STATE_OPEN:
		snprintf(finding, len, "no nftables or iptables rule here drops it");
		return PING_FW_OPEN;
	case FW_STATE_DENIED:
		snprintf(finding, len, "the firewall rules could not be read without root; run "
			 "`sudo rxectl doctor` here");
		return PING_FW_UNKNOWN;
	case FW_STATE_UNREADABLE:
		snprintf(finding, len, "the firewall rules could not be read; run `rxectl doctor` "
			 "here");
		return PING_FW_UNKNOWN;
	case FW_STATE_DROP:
	case FW_STATE_MAYBE:
		break;
	}
	if (r.nft && f->handle >= 0)
		snprintf(where, sizeof(where), "nftables %s table %s, chain %s, rule `%s`", f->family,
			 f->table, f->chain, f->rule);
	else if (r.nft)
		snprintf(where, sizeof(where), "nftables %s table %s, chain %s with policy drop",
			 f->family, f->table, f->chain);
	else
		snprintf(where, sizeof(where), "%s table %s, chain %s, rule `%s`", f->family,
			 f->table, f->chain, f->rule);
	snprintf(finding, len, "%s %s it", where, r.state == FW_STATE_DROP ? "drops" : "may drop");
	return r.state == FW_STATE_DROP ? PING_FW_FILTERED : PING_FW_UNKNOWN;
}
