// SPDX-License-Identifier: GPL-2.0
/* ping_listen.c - `rxectl ping --listen`: accept clients over RDMA CM and serve their operations. */
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
#include "escape.h"
#include "util.h"
#include "ping_conn.h"

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

/*
 * A counters query (ping.h: facts asking for a 0-byte buffer, sent by a client whose test just
 * failed, maybe while we still serve its connection): rejected with this side's loss counters.
 * False when `ev` is an ordinary request.  Call before the event is acknowledged.
 */
static bool answer_counters_query(struct listener *ls, struct rdma_cm_event *ev)
{
	struct ping_counters c;
	struct ping_facts f;
	uint8_t pd[PING_COUNTERS_LEN];
	char who[INET6_ADDRSTRLEN];

	if (ping_facts_decode(ev->param.conn.private_data, ev->param.conn.private_data_len, &f) ||
	    f.buf_size != 0)
		return false;
	ping_device_counters(ls->ctx, ev->id->verbs ? ibv_get_device_name(ev->id->verbs->device) :
			     NULL, &c);
	ping_counters_encode(&c, pd, sizeof(pd));
	rdma_reject(ev->id, pd, sizeof(pd));
	out_text(ls->ctx->out, "%s: sent this side's loss counters%s\n",
		 peer_str(ev->id, who, sizeof(who)), c.known ? "" : " (none could be read)");
	fflush(stdout);
	return true;
}

/* Any CM event while serving: another client is turned away; returns true when ours ended. */
static bool serve_cm_event(struct listener *ls, struct ping_conn *c, struct rdma_cm_event *ev)
{
	bool ours = ev->id == c->id;
	bool end = ours && (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
			    ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL);

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && !ours) {
		struct rdma_cm_id *other = ev->id;

		if (!answer_counters_query(ls, ev))
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

	if (ping_post_recv(c, half_a(c), c->size))
		return;
	for (;;) {
		struct rdma_cm_event *ev = NULL;
		struct ibv_wc wc;
		struct ping_ctrl q, a = { PING_OP_STATUS, 0, 0, 0 };
		uint32_t op;

		r = ping_wait_wc(c, ls->ch, ls->sigfd,
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
			r = ping_post_recv(c, half_a(c), c->size);
			if (r == 0)
				r = ping_post_send(c, IBV_WR_SEND_WITH_IMM, half_a(c), len, PING_OP_ECHO);
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
			r = ping_post_recv(c, half_a(c), c->size);
			if (r == 0)
				r = ping_post_send(c, IBV_WR_SEND_WITH_IMM, ctrl_tx(c), PING_CTRL_LEN,
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

	if (answer_counters_query(ls, ev)) {
		rdma_ack_cm_event(ev);
		rdma_destroy_id(c.id);
		return;
	}
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
	ping_gather_facts(ls->ctx, &c);
	c.local.buf_size = cf.buf_size;
	c.peer = cf;
	r = ping_conn_setup(&c, cf.buf_size);
	if (r) {
		log_msg(LOG_ERR, "%s: cannot set up the connection here: %s; check `ulimit -l`.",
			who, strerror(-r));
		reject(c.id, "the listener cannot allocate resources for it (see its messages).");
		ping_conn_teardown(&c);
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
		ping_conn_teardown(&c);
		return;
	}
	/* ESTABLISHED; other clients knocking meanwhile are turned away. */
	const char *cm_why = "RDMA CM error";

	for (;;) {
		r = ping_wait_cm(ls->ch, ls->sigfd, mono_ns() + (int64_t)ls->o->timeout * 1000000000, &e2);
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
	ping_conn_teardown(&c);
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

int ping_run_listener(struct rxectl *ctx, const struct ping_opts *o)
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
	ls.sigfd = ping_block_signals(&old);
	inet_ntop(ss.ss_family, ss.ss_family == AF_INET ?
		  (void *)&((struct sockaddr_in *)&ss)->sin_addr :
		  (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr, a, sizeof(a));
	out_text(ctx->out, "listening on %s port %u; stop with Ctrl-C\n", a, o->port);
	fflush(stdout);
	while (!ls.stop) {
		struct rdma_cm_event *ev;
		int r = ping_wait_cm(ls.ch, ls.sigfd, -1, &ev);

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
