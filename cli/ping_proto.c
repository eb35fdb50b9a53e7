// SPDX-License-Identifier: GPL-2.0
/* ping_proto.c - the pure parts of `rxectl ping`: facts on the wire, size lists, patterns, diagnosis. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "ping.h"

/* IB CM reject reasons RDMA CM passes up as the REJECTED event's status. */
#define IB_CM_REJ_INVALID_SERVICE_ID	8
#define IB_CM_REJ_CONSUMER_DEFINED	28

static void put16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v) { put16(p, v >> 16); put16(p + 2, (uint16_t)v); }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) << 16 | get16(p + 2); }

size_t ping_facts_encode(const struct ping_facts *f, uint8_t *buf, size_t len)
{
	if (len < PING_FACTS_LEN)
		return 0;
	memset(buf, 0, PING_FACTS_LEN);
	buf[0] = 'R';
	buf[1] = 'X';
	buf[2] = PING_WIRE_VERSION;
	buf[3] = f->driver;
	put16(buf + 4, f->netdev_mtu);
	put16(buf + 6, f->active_mtu);
	put32(buf + 8, f->buf_size);
	memcpy(buf + 12, f->gid, 16);
	memcpy(buf + 28, f->version, strnlen(f->version, 14));
	memcpy(buf + 42, f->device, strnlen(f->device, 14));
	return PING_FACTS_LEN;
}

int ping_facts_decode(const uint8_t *buf, size_t len, struct ping_facts *f)
{
	memset(f, 0, sizeof(*f));
	if (!buf || len < PING_FACTS_LEN || buf[0] != 'R' || buf[1] != 'X')
		return -EINVAL;
	if (buf[2] != PING_WIRE_VERSION)
		return -EPROTO;
	f->driver = buf[3];
	f->netdev_mtu = get16(buf + 4);
	f->active_mtu = get16(buf + 6);
	f->buf_size = get32(buf + 8);
	memcpy(f->gid, buf + 12, 16);
	memcpy(f->version, buf + 28, 14);
	memcpy(f->device, buf + 42, 14);
	return 0;
}

const char *const ping_counter_names[PING_N_COUNTERS] = {
	"completer_retry_err", "retry_exceeded_err", "rcvd_seq_err", "out_of_seq_request",
	"duplicate_request",
};

size_t ping_counters_encode(const struct ping_counters *c, uint8_t *buf, size_t len)
{
	if (len < PING_COUNTERS_LEN)
		return 0;
	buf[0] = 'R';
	buf[1] = 'C';
	buf[2] = PING_N_COUNTERS;
	for (size_t i = 0; i < PING_N_COUNTERS; i++) {
		put32(buf + 3 + 8 * i, (uint32_t)(c->v[i] >> 32));
		put32(buf + 7 + 8 * i, (uint32_t)c->v[i]);
	}
	return PING_COUNTERS_LEN;
}

int ping_counters_decode(const uint8_t *buf, size_t len, struct ping_counters *c)
{
	memset(c, 0, sizeof(*c));
	if (!buf || len < 3 || buf[0] != 'R' || buf[1] != 'C' || len < 3 + 8 * (size_t)buf[2])
		return -EINVAL;
	for (size_t i = 0; i < PING_N_COUNTERS; i++)
		c->v[i] = i < buf[2] ? (uint64_t)get32(buf + 3 + 8 * i) << 32 | get32(buf + 7 + 8 * i)
				     : PING_COUNTER_UNKNOWN;
	c->known = true;
	return 0;
}

const char *ping_driver_str(uint8_t drv)
{
	switch (drv) {
	case PING_DRV_INTREE:	return "in-tree rxe";
	case PING_DRV_BUNDLED:	return "bundled rxe";
	case PING_DRV_OTHER:	return "not rxe";
	default:		return "unknown";
	}
}

void ping_gid_str(const uint8_t gid[16], char *buf, size_t len)
{
	char tmp[INET6_ADDRSTRLEN];

	if (!inet_ntop(AF_INET6, gid, tmp, sizeof(tmp)))
		snprintf(tmp, sizeof(tmp), "?");
	snprintf(buf, len, "%s", tmp);
}

void ping_ctrl_encode(const struct ping_ctrl *c, uint8_t buf[PING_CTRL_LEN])
{
	put32(buf, c->op);
	put32(buf + 4, c->size);
	put32(buf + 8, c->seed);
	put32(buf + 12, c->status);
}

void ping_ctrl_decode(const uint8_t buf[PING_CTRL_LEN], struct ping_ctrl *c)
{
	c->op = get32(buf);
	c->size = get32(buf + 4);
	c->seed = get32(buf + 8);
	c->status = get32(buf + 12);
}

void ping_pattern_fill(uint8_t *buf, uint32_t size, uint32_t seed)
{
	for (uint32_t i = 0; i < size; i++)
		buf[i] = ping_pattern_byte(seed, i);
}

long ping_pattern_check(const uint8_t *buf, uint32_t size, uint32_t seed)
{
	for (uint32_t i = 0; i < size; i++)
		if (buf[i] != ping_pattern_byte(seed, i))
			return (long)i;
	return -1;
}

void ping_size_str(uint32_t size, char *buf, size_t len)
{
	if (size >= (1u << 20) && size % (1u << 20) == 0)
		snprintf(buf, len, "%uM", size >> 20);
	else if (size >= 1024 && size % 1024 == 0)
		snprintf(buf, len, "%uK", size >> 10);
	else
		snprintf(buf, len, "%u", size);
}

/* One size: digits with an optional K or M (binary). */
static int parse_one(const char *s, const char *end, uint32_t *out)
{
	unsigned long long v = 0;
	const char *p = s;

	if (p == end)
		return -EINVAL;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned)(*p - '0');
		if (v > PING_MAX_SIZE)
			return -ERANGE;
	}
	if (p == s)
		return -EINVAL;
	if (p < end) {
		if (*p == 'k' || *p == 'K')
			v <<= 10;
		else if (*p == 'm' || *p == 'M')
			v <<= 20;
		else
			return -EINVAL;
		p++;
	}
	if (p != end)
		return -EINVAL;
	if (v == 0 || v > PING_MAX_SIZE)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int push(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 32;
		uint32_t *nv = realloc(*v, c * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

int ping_parse_sizes(const char *s, uint32_t **out, size_t *n, char *err, size_t errlen)
{
	uint32_t *v = NULL;
	size_t nv = 0, cap = 0, k;
	const char *p = s;
	char lim[16];

	*out = NULL;
	*n = 0;
	ping_size_str(PING_MAX_SIZE, lim, sizeof(lim));
	if (!s || !*s) {
		snprintf(err, errlen, "the size list is empty");
		return -EINVAL;
	}
	while (*p) {
		const char *end = strchr(p, ','), *dash;
		uint32_t lo, hi;
		int r;

		if (!end)
			end = p + strlen(p);
		dash = memchr(p, '-', (size_t)(end - p));
		r = parse_one(p, dash ? dash : end, &lo);
		if (r == 0 && dash)
			r = parse_one(dash + 1, end, &hi);
		else
			hi = lo;
		if (r < 0) {
			snprintf(err, errlen, r == -ERANGE ?
				 "'%.*s' is out of range: sizes are 1 to %s bytes" :
				 "'%.*s' is not a size or a range like 1-1M%.0s",
				 (int)(end - p), p, lim);
			free(v);
			return -EINVAL;
		}
		if (hi < lo) {
			snprintf(err, errlen, "the range '%.*s' goes downwards", (int)(end - p), p);
			free(v);
			return -EINVAL;
		}
		for (uint64_t x = lo; x <= hi; x *= 2)
			if (push(&v, &nv, &cap, (uint32_t)x) < 0) {
				snprintf(err, errlen, "out of memory");
				free(v);
				return -ENOMEM;
			}
		if (!*end)
			break;
		p = end + 1;
		if (!*p) {
			snprintf(err, errlen, "the size list ends with a comma");
			free(v);
			return -EINVAL;
		}
	}
	qsort(v, nv, sizeof(*v), cmp_u32);
	for (size_t i = k = 0; i < nv; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	*out = v;
	*n = k;
	return 0;
}

#define say(...) snprintf(d->message, sizeof(d->message), __VA_ARGS__)

static void diag_cm_silence(const struct ping_failure *f, struct ping_diag *d)
{
	const char *fw;
	char local[256];

	if (f->udp_probe == PING_PROBE_REFUSED) {
		d->layer = "no_rxe";
		say("RDMA CM got no answer from %s, and %s answers UDP port 4791 (RoCE v2) with "
		    "\"port unreachable\": nothing receives RoCE there, so %s has no rxe (or other "
		    "RoCE) device on that address. Run `rxectl up NETDEV` on %s, then "
		    "`rxectl ping --listen` there.", f->host, f->host, f->host, f->host);
		return;
	}
	if (f->local_fw == PING_FW_FILTERED) {
		d->layer = "firewall";
		say("RDMA CM got no answer from %s: inbound UDP 4791 (RoCE v2) is filtered on this "
		    "side%s%s, so the peer's replies are dropped here. Allow UDP port 4791 in the "
		    "firewall (see `rxectl doctor`), and run `rxectl doctor` on %s as well.",
		    f->host, f->local_fw_text && *f->local_fw_text ? ": " : "",
		    f->local_fw_text ? f->local_fw_text : "", f->host);
		return;
	}
	if (f->local_fw == PING_FW_OPEN)
		fw = "UDP 4791 is not filtered on this side";
	else {
		snprintf(local, sizeof(local), "whether UDP 4791 is filtered on this side is not "
			 "known (%s)", f->local_fw_text && *f->local_fw_text ? f->local_fw_text :
			 "run `rxectl doctor` here");
		fw = local;
	}
	d->layer = "cm";
	say("RDMA CM got no answer from %s%s: the connection request (RoCE v2, UDP port 4791) or "
	    "its reply is lost on the way; %s. The usual causes, most likely first: a firewall on "
	    "%s dropping inbound UDP 4791; no RDMA CM user there at all (no `rxectl ping --listen` "
	    "has run since boot, so the kernel's ib_cm is not even loaded to refuse us); no rxe "
	    "device on the netdev that holds %s. Run `rxectl doctor` on %s (check "
	    "firewall.udp4791), and start `rxectl ping --listen` there.", f->host,
	    f->timed_out ? " before the timeout" : "", fw, f->host, f->addr ? f->addr : f->host,
	    f->host);
}

static void diag_reject(const struct ping_failure *f, struct ping_diag *d)
{
	if (f->reject_text && *f->reject_text) {
		d->layer = strstr(f->reject_text, "busy") ? "busy" : "rejected";
		say("the listener on %s refused the connection: %s", f->host, f->reject_text);
	} else if (f->reject_reason == IB_CM_REJ_INVALID_SERVICE_ID) {
		d->layer = "listener";
		say("%s has an RDMA device and answers RDMA CM, but nothing listens on that port: "
		    "the listener is not running. Start `rxectl ping --listen` on %s (with the same "
		    "--port).", f->host, f->host);
	} else {
		d->layer = "rejected";
		say("%s rejected the connection (IB CM reason %d). Check that `rxectl ping --listen` "
		    "runs there with the same --port and a matching rxectl version.", f->host,
		    f->reject_reason);
	}
}

static bool mtus_differ(const struct ping_failure *f)
{
	return f->have_facts &&
		((f->local.netdev_mtu && f->peer.netdev_mtu &&
		  f->local.netdev_mtu != f->peer.netdev_mtu) ||
		 (f->local.active_mtu && f->peer.active_mtu &&
		  f->local.active_mtu != f->peer.active_mtu));
}

/* "never completed": our deadline passed, or the transport gave up retrying. */
static bool never_completed(const struct ping_failure *f)
{
	return f->result == PING_RES_TIMEOUT ||
		(f->result == PING_RES_WC_ERROR && f->wc_status_str &&
		 strstr(f->wc_status_str, "retry"));
}

/* The largest packet payload on the path: the smaller RoCE active MTU (4096, RoCE's largest,
 * when neither side said). */
static unsigned int one_packet(const struct ping_failure *f)
{
	unsigned int a = f->have_facts ? f->local.active_mtu : 0;
	unsigned int b = f->have_facts ? f->peer.active_mtu : 0;

	if (a && b)
		return a < b ? a : b;
	return a ? a : b ? b : 4096;
}

bool ping_is_loss(const struct ping_failure *f)
{
	return f->stage == PING_STAGE_TRANSFER && never_completed(f) && !mtus_differ(f) &&
		f->passed_size > one_packet(f);
}

/* " name N, name N, ..." of the counters that are known, or `none`. */
static void counters_str(const struct ping_counters *c, char *buf, size_t len, const char *none)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; c->known && i < PING_N_COUNTERS && o < len; i++)
		if (c->v[i] != PING_COUNTER_UNKNOWN)
			o += (size_t)snprintf(buf + o, len - o, "%s%s %llu", o ? ", " : "",
					      ping_counter_names[i], (unsigned long long)c->v[i]);
	if (!buf[0])
		snprintf(buf, len, "%s", none);
}

static void diag_loss(const struct ping_failure *f, struct ping_diag *d, const char *sz,
		      const char *ok)
{
	char here[256], there[256], when[96];
	unsigned int pkts = (f->passed_size + one_packet(f) - 1) / one_packet(f);

	counters_str(&f->local_ctr, here, sizeof(here), "not known (the driver keeps none, or "
		     "they could not be read)");
	counters_str(&f->peer_ctr, there, sizeof(there), f->peer_ctr.known ? "not known (its "
		     "driver keeps none)" : "not known (it did not answer the counters query; run "
		     "`rxectl stats` there)");
	if (f->result != PING_RES_TIMEOUT)
		snprintf(when, sizeof(when), "before the transport gave up retrying (%s)",
			 f->wc_status_str);
	else if (f->waited_s)
		snprintf(when, sizeof(when), "in the %u s waited", f->waited_s);
	else
		snprintf(when, sizeof(when), "in the time waited");
	d->layer = "loss";
	say("messages up to %s bytes pass (%u packets of up to %u bytes each, so full-size frames "
	    "get through), but the %s of %s bytes did not complete %s: the path loses or delays "
	    "packets and the retransmissions did not recover in time. Retransmission and "
	    "sequence-error counters: this side, during the test: %s; %s, since its device was "
	    "created: %s. Give it longer with --timeout (e.g. --timeout %u), or test smaller "
	    "messages with --sizes (e.g. --sizes 1-%s); `rxectl stats --watch 1` on both sides "
	    "shows the loss as it happens.", ok, pkts, one_packet(f), f->op, sz, when, here,
	    f->host, there, f->waited_s ? f->waited_s * 3 : 30, ok);
}

static void diag_transfer(const struct ping_failure *f, struct ping_diag *d)
{
	char sz[16], ok[16];
	bool never = never_completed(f);

	ping_size_str(f->size, sz, sizeof(sz));
	ping_size_str(f->passed_size, ok, sizeof(ok));
	if (f->result == PING_RES_PEER_GONE) {
		d->layer = "peer_gone";
		say("%s closed the connection during the %s test of %s bytes: the listener stopped "
		    "or its host went away.", f->host, f->op, sz);
		return;
	}
	if (f->result == PING_RES_LOCAL) {
		d->layer = "local";
		say("posting the %s of %s bytes failed on this side: %s.", f->op, sz,
		    f->err ? strerror(-f->err) : "unknown error");
		return;
	}
	if (f->result == PING_RES_MISMATCH) {
		d->layer = "data";
		say("the %s of %s bytes completed but the data differs from what was sent, first at "
		    "byte %ld: the RDMA data path corrupts data; check both sides with `rxectl test`.",
		    f->op, sz, f->bad_offset);
		return;
	}
	if (f->result == PING_RES_WC_ERROR && f->wc_status_str &&
	    (strstr(f->wc_status_str, "remote access") || strstr(f->wc_status_str, "remote invalid"))) {
		d->layer = "remote_access";
		say("the %s of %s bytes failed with a remote access error (%s): the peer refused the "
		    "memory key or address it advertised. Check that both sides run the same rxectl "
		    "version, and run `rxectl test` on %s.", f->op, sz, f->wc_status_str, f->host);
		return;
	}
	if (never && f->passed_size > 0 && mtus_differ(f)) {
		unsigned int big = f->local.netdev_mtu > f->peer.netdev_mtu ?
			f->local.netdev_mtu : f->peer.netdev_mtu;
		unsigned int small = f->local.netdev_mtu < f->peer.netdev_mtu ?
			f->local.netdev_mtu : f->peer.netdev_mtu;
		bool local_big = f->local.netdev_mtu > f->peer.netdev_mtu;
		const char *nd = f->local_netdev ? f->local_netdev : "NETDEV";
		char fix[256];

		if (local_big)
			snprintf(fix, sizeof(fix), "`ip link set dev %s mtu %u` here, or raise the netdev "
				 "of %s to MTU %u", nd, small, f->host, big);
		else
			snprintf(fix, sizeof(fix), "`ip link set dev NETDEV mtu %u` on %s, or raise %s "
				 "here to MTU %u", small, f->host, nd, big);
		d->layer = "mtu";
		say("MTU mismatch: messages up to %s bytes pass, but the %s of %s bytes never "
		    "completes, and the two sides' MTUs differ: this side's netdev %s has MTU %u "
		    "(RoCE active MTU %u), the peer %s has MTU %u (RoCE active MTU %u). RoCE packets "
		    "sized for the larger MTU are dropped on the way. Give both netdevs the same MTU: "
		    "%s (only if every link between them carries frames that big).", ok, f->op, sz,
		    nd, f->local.netdev_mtu, f->local.active_mtu, f->host, f->peer.netdev_mtu,
		    f->peer.active_mtu, fix);
		return;
	}
	if (ping_is_loss(f)) {
		diag_loss(f, d, sz, ok);
		return;
	}
	d->layer = "transfer";
	if (never && f->passed_size > 0)
		say("messages up to %s bytes pass, but the %s of %s bytes never completes (%s), "
		    "while both sides report the same MTU (netdev %u, RoCE %u): something between "
		    "the hosts drops large frames; check the MTU of every link and switch on the "
		    "path.", ok, f->op, sz, f->result == PING_RES_TIMEOUT ? "no completion before "
		    "the timeout" : f->wc_status_str, f->local.netdev_mtu, f->local.active_mtu);
	else if (f->result == PING_RES_TIMEOUT)
		say("the connection is up, but the %s of %s bytes did not complete before the "
		    "timeout: %s stopped answering. Run `rxectl doctor` on both sides.", f->op, sz,
		    f->host);
	else
		say("the connection is up, but the %s of %s bytes failed: %s. Run `rxectl doctor` "
		    "on both sides.", f->op, sz, f->wc_status_str ? f->wc_status_str : "unknown error");
}

void ping_diagnose(const struct ping_failure *f, struct ping_diag *d)
{
	const char *e = f->detail ? f->detail :
		f->err ? strerror(-f->err) : "no answer before the timeout";

	d->layer = "local";
	d->message[0] = '\0';
	switch (f->stage) {
	case PING_STAGE_NAME:
		d->layer = "name";
		say("%s does not resolve to an address: %s. Give an IP address or a name this host "
		    "can resolve.", f->host, f->err ? e : "no address");
		break;
	case PING_STAGE_SETUP:
		d->layer = "device";
		say("RDMA CM is not available on this host (%s): load rdma_ucm and create an rxe "
		    "device with `rxectl up NETDEV`.", e);
		break;
	case PING_STAGE_ADDR:
		if (f->err == -ENODEV || f->err == -EADDRNOTAVAIL) {
			d->layer = "device";
			say("the route to %s leaves through %s, which has no RDMA device: create one "
			    "with `rxectl up %s`.", f->addr ? f->addr : f->host,
			    f->local_netdev ? f->local_netdev : "a netdev",
			    f->local_netdev ? f->local_netdev : "NETDEV");
		} else if (f->err == -ENETUNREACH) {
			d->layer = "address";
			say("%s is not routable from this host (%s): add an address in its subnet or a "
			    "route (`ip route`).", f->addr ? f->addr : f->host, e);
		} else {
			d->layer = "address";
			say("the address %s does not resolve to a neighbour (%s): the host is down or "
			    "not on this link; check `ping %s` and `ip neigh`.",
			    f->addr ? f->addr : f->host, e, f->addr ? f->addr : f->host);
		}
		break;
	case PING_STAGE_ROUTE:
		d->layer = "route";
		say("RDMA CM cannot find a route to %s (%s): check that the rxe device's port is "
		    "ACTIVE and has a RoCE v2 GID for this address (`rxectl status`).",
		    f->addr ? f->addr : f->host, e);
		break;
	case PING_STAGE_RESOURCES:
		d->layer = "local";
		say("cannot set up the connection on this side: %s. Check `ulimit -l` (locked "
		    "memory) and run `rxectl doctor`.", e);
		break;
	case PING_STAGE_CONNECT:
		if (f->reject_reason || (f->reject_text && *f->reject_text))
			diag_reject(f, d);
		else
			diag_cm_silence(f, d);
		break;
	case PING_STAGE_TRANSFER:
		diag_transfer(f, d);
		break;
	}
}
