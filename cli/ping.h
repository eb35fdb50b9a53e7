/* SPDX-License-Identifier: GPL-2.0 */
/* ping.h - `rxectl ping`: the wire format of the facts, size lists, data patterns, diagnosis. */
#ifndef RXECTL_PING_H
#define RXECTL_PING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PING_DEFAULT_PORT	7174		/* the RDMA CM (TCP port space) port */
#define PING_DEFAULT_COUNT	10
#define PING_DEFAULT_TIMEOUT	10		/* seconds, for every single wait */
#define PING_DEFAULT_SIZES	"1-1M"
#define PING_MAX_SIZE		(64u << 20)	/* the largest message the listener accepts */

/*
 * The facts each side sends: in the CM REQ private data (the client; RDMA CM
 * leaves 56 of the REQ's 92 bytes to the user) and in the REP (the listener,
 * followed by the address and rkey of its RDMA buffer).  Big-endian:
 *
 *   0  'R' 'X'   magic
 *   2  u8        wire version (PING_WIRE_VERSION)
 *   3  u8        driver (enum ping_driver)
 *   4  u16       netdev MTU (0: unknown)
 *   6  u16       RoCE active MTU in bytes (0: unknown)
 *   8  u32       buffer size: the largest message the client will send / the listener takes
 *  12  16 bytes  GID used by the connection
 *  28  14 bytes  rxectl version (NUL-padded, cut at 14)
 *  42  14 bytes  RDMA device name (NUL-padded, cut at 14)
 *  56
 */
#define PING_WIRE_VERSION	1
#define PING_FACTS_LEN		56
#define PING_REP_LEN		(PING_FACTS_LEN + 12)	/* + u64 address, u32 rkey */

enum ping_driver { PING_DRV_UNKNOWN, PING_DRV_INTREE, PING_DRV_BUNDLED, PING_DRV_OTHER };

struct ping_facts {
	char version[15];
	char device[15];
	uint8_t driver;
	uint16_t netdev_mtu;
	uint16_t active_mtu;
	uint32_t buf_size;
	uint8_t gid[16];
};

/* Writes PING_FACTS_LEN bytes; returns that, or 0 if `len` is too small. */
size_t ping_facts_encode(const struct ping_facts *f, uint8_t *buf, size_t len);
/* 0, -EINVAL when too short or not our magic, -EPROTO for another wire version. */
int ping_facts_decode(const uint8_t *buf, size_t len, struct ping_facts *f);
/* "in-tree rxe", "bundled rxe", "not rxe", "unknown". */
const char *ping_driver_str(uint8_t drv);
/* The GID as text ("::ffff:192.0.2.1"). */
void ping_gid_str(const uint8_t gid[16], char *buf, size_t len);

/*
 * A size list: comma-separated items, each a size ("4096", "4K", "1M") or a
 * range of powers of two ("1-1M": 1, 2, 4, ... 1M).  Sizes are 1 B ..
 * PING_MAX_SIZE; the result is sorted and without duplicates.  *out is
 * malloc'd.  Returns 0, or -EINVAL with a sentence fragment in `err`.
 */
int ping_parse_sizes(const char *s, uint32_t **out, size_t *n, char *err, size_t errlen);
/* "512", "4K", "1M": exact binary units when they divide. */
void ping_size_str(uint32_t size, char *buf, size_t len);

/* The data pattern: byte `i` of a message made from `seed`.  Never periodic in 256. */
static inline uint8_t ping_pattern_byte(uint32_t seed, uint32_t i)
{
	uint32_t x = seed ^ (i * 0x9e3779b1u);

	x ^= x >> 15;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	return (uint8_t)x;
}
void ping_pattern_fill(uint8_t *buf, uint32_t size, uint32_t seed);
/* Index of the first byte that differs, or -1 when the buffer matches. */
long ping_pattern_check(const uint8_t *buf, uint32_t size, uint32_t seed);

/* Messages on the connection: SEND with immediate data = the opcode. */
enum ping_op {
	PING_OP_ECHO = 1,	/* client -> listener: send the same bytes back */
	PING_OP_VERIFY = 2,	/* control: check the RDMA buffer against (size, seed) */
	PING_OP_FILL = 3,	/* control: fill the RDMA buffer with (size, seed) */
	PING_OP_STATUS = 4,	/* control reply: status 0 ok, else offset + 1 of the first bad byte */
};
#define PING_CTRL_LEN 16	/* u32 op, size, seed, status (big-endian) */

struct ping_ctrl {
	uint32_t op, size, seed, status;
};
void ping_ctrl_encode(const struct ping_ctrl *c, uint8_t buf[PING_CTRL_LEN]);
void ping_ctrl_decode(const uint8_t buf[PING_CTRL_LEN], struct ping_ctrl *c);

/* Where the client got to, and what it saw: the input of the diagnosis. */
enum ping_stage {
	PING_STAGE_NAME,	/* getaddrinfo(HOST) */
	PING_STAGE_SETUP,	/* opening RDMA CM itself */
	PING_STAGE_ADDR,	/* rdma_resolve_addr */
	PING_STAGE_ROUTE,	/* rdma_resolve_route */
	PING_STAGE_RESOURCES,	/* PD, CQ, QP, MRs on the resolved device */
	PING_STAGE_CONNECT,	/* rdma_connect until ESTABLISHED */
	PING_STAGE_TRANSFER,	/* the sweep */
};

enum ping_probe { PING_PROBE_UNKNOWN, PING_PROBE_REFUSED, PING_PROBE_SILENT };
enum ping_fw { PING_FW_UNKNOWN = -1, PING_FW_OPEN = 0, PING_FW_FILTERED = 1 };

/* How one operation ended, in the sweep. */
enum ping_result {
	PING_RES_OK,
	PING_RES_TIMEOUT,	/* no completion before the deadline */
	PING_RES_WC_ERROR,	/* a work completion with an error status (wc_status) */
	PING_RES_MISMATCH,	/* completed, but the bytes differ */
	PING_RES_PEER_GONE,	/* RDMA CM says the peer disconnected */
	PING_RES_LOCAL,		/* posting failed here */
};

/*
 * The loss counters of one side (rdma_rxe's names, see stats.c) that the "loss" verdict quotes:
 * retransmissions and sequence errors.  A listener answers a counters query (a connection
 * request whose facts ask for a 0-byte buffer) with a reject whose private data is
 *   0 'R' 'C'  magic,  2 u8 n,  3 n x u64 (big-endian; PING_COUNTER_UNKNOWN: none)
 * so a client can read them while the listener is still busy with its failed connection.
 */
#define PING_N_COUNTERS		5
#define PING_COUNTER_UNKNOWN	UINT64_MAX
#define PING_COUNTERS_LEN	(3 + 8 * PING_N_COUNTERS)
extern const char *const ping_counter_names[PING_N_COUNTERS];
struct ping_counters {
	bool known;
	uint64_t v[PING_N_COUNTERS];	/* PING_COUNTER_UNKNOWN where the driver has none */
};
/* Writes PING_COUNTERS_LEN bytes (0 if `len` is too small); decode: 0 or -EINVAL. */
size_t ping_counters_encode(const struct ping_counters *c, uint8_t *buf, size_t len);
int ping_counters_decode(const uint8_t *buf, size_t len, struct ping_counters *c);

struct ping_failure {
	enum ping_stage stage;
	const char *host;		/* as the user typed it */
	const char *addr;		/* the resolved address, or NULL */
	int err;			/* negative errno: the event's status or the call's error */
	const char *detail;		/* a better text than strerror(err), or NULL */
	bool timed_out;			/* our deadline passed with no event */
	int reject_reason;		/* REJECTED: the IB CM reason */
	const char *reject_text;	/* REJECTED by an rxectl listener: its sentence, or NULL */
	enum ping_probe udp_probe;	/* a UDP datagram to HOST:4791: ICMP port unreachable? */
	enum ping_fw local_fw;		/* is inbound UDP 4791 filtered on this side */
	const char *local_fw_text;	/* the firewall check's finding, or NULL */
	const char *local_netdev;	/* this side's netdev name, or NULL */
	/* PING_STAGE_TRANSFER */
	const char *op;			/* "send", "write", "read" */
	uint32_t size;			/* the size that failed */
	uint32_t passed_size;		/* the largest size every operation passed, 0 if none */
	enum ping_result result;
	int wc_status;			/* enum ibv_wc_status when result is PING_RES_WC_ERROR */
	const char *wc_status_str;
	long bad_offset;		/* PING_RES_MISMATCH */
	bool have_facts;
	struct ping_facts local, peer;
	unsigned int waited_s;		/* the wait that ran out (--timeout) */
	struct ping_counters local_ctr;	/* this side's loss counters' growth during the sweep */
	struct ping_counters peer_ctr;	/* the peer's, since its device was created */
};

/*
 * Would the diagnosis of `f` be "loss": a message larger than one packet (the RoCE active MTU)
 * passed, so full-size frames do get through, and a later one never completed?  Then the client
 * gathers both sides' counters first.  Pure.
 */
bool ping_is_loss(const struct ping_failure *f);

struct ping_diag {
	const char *layer;	/* stable id: name, address, route, device, cm, firewall, no_rxe,
				 * listener, busy, rejected, mtu, transfer, loss, remote_access,
				 * data, peer_gone, local */
	char message[1280];	/* sentences: what is wrong, and what to do */
};

/* The decision: which layer failed and what to say.  Pure: no I/O. */
void ping_diagnose(const struct ping_failure *f, struct ping_diag *d);

/*
 * Is inbound UDP 4791 filtered on this host?  The same inspection as the doctor's
 * `firewall.udp4791` check (firewall_inspect(), firewall.h), so both give one verdict for one
 * ruleset.  `finding` gets one sentence fragment naming the rule.
 */
enum ping_fw ping_local_firewall(char *finding, size_t len);

/* Per (size, operation): what the sweep measured. */
struct ping_row {
	const char *op;
	uint32_t size;
	unsigned int count;
	uint64_t lat_min_ns, lat_avg_ns, lat_max_ns;
	uint64_t bandwidth_bps;		/* bytes per second: size * count / total time */
	bool passed;
};

#endif
