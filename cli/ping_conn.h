/* SPDX-License-Identifier: GPL-2.0 */
/* ping_conn.h - what the parts of `rxectl ping` share: its options, one connection's CM/verbs resources, the client's state. */
#ifndef RXECTL_PING_CONN_H
#define RXECTL_PING_CONN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "ping.h"
#include "rxe.h"
#include "rxectl.h"

struct output;

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

static inline uint8_t *half_a(struct ping_conn *c) { return c->buf; }
static inline uint8_t *half_b(struct ping_conn *c) { return c->buf + c->size; }
static inline uint8_t *ctrl_tx(struct ping_conn *c) { return c->buf + 2 * (size_t)c->size; }
static inline uint8_t *ctrl_rx(struct ping_conn *c) { return ctrl_tx(c) + 32; }

/* ping_conn.c: CM and verbs plumbing */
int ping_ms_left(int64_t deadline);
int ping_wait_cm(struct rdma_event_channel *ch, int sigfd, int64_t deadline,
		 struct rdma_cm_event **ev);
int ping_wait_wc(struct ping_conn *c, struct rdma_event_channel *ch, int sigfd, int64_t deadline,
		 struct ibv_wc *wc, struct rdma_cm_event **cm_ev);
void ping_gather_facts(struct rxectl *ctx, struct ping_conn *c);
/* The loss counters (ping.h) of rxe device `device`; out->known false when they cannot be read. */
void ping_device_counters(struct rxectl *ctx, const char *device, struct ping_counters *out);
int ping_conn_setup(struct ping_conn *c, uint32_t size);
void ping_conn_teardown(struct ping_conn *c);
int ping_post_recv(struct ping_conn *c, uint8_t *at, uint32_t len);
int ping_post_send(struct ping_conn *c, enum ibv_wr_opcode opc, uint8_t *at, uint32_t len,
		   uint32_t imm);
int ping_block_signals(sigset_t *old);

/* ping_client.c */
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

int ping_run_client(struct rxectl *ctx, const struct ping_opts *o);

/* ping_report.c: the facts table and the rows, text and JSON */
void ping_print_facts(struct output *o, const char *key, const struct ping_facts *f);
void ping_print_facts_text(struct output *o, const struct client *cl);
void ping_print_row(struct output *o, const struct ping_row *r);

/* ping_listen.c */
int ping_run_listener(struct rxectl *ctx, const struct ping_opts *o);

#endif
