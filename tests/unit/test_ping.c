// SPDX-License-Identifier: GPL-2.0
/* test_ping.c - rxectl ping's pure parts: size lists, facts on the wire, patterns, the diagnosis. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ping.h"
#include "tap.h"

static bool sizes_are(const char *list, const uint32_t *want, size_t n)
{
	uint32_t *v;
	size_t nv;
	char err[160];
	bool ok;

	if (ping_parse_sizes(list, &v, &nv, err, sizeof(err)))
		return false;
	ok = nv == n && !memcmp(v, want, n * sizeof(*v));
	free(v);
	return ok;
}

static bool sizes_refused(const char *list, const char *needle)
{
	uint32_t *v = NULL;
	size_t nv;
	char err[160] = "";
	int r = ping_parse_sizes(list, &v, &nv, err, sizeof(err));

	free(v);
	return r == -EINVAL && strstr(err, needle);
}

static void diagnose(const struct ping_failure *f, struct ping_diag *d)
{
	memset(d, 0, sizeof(*d));
	ping_diagnose(f, d);
}

static struct ping_failure transfer_failure(uint16_t local_mtu, uint16_t peer_mtu)
{
	struct ping_failure f = {
		.stage = PING_STAGE_TRANSFER, .host = "192.0.2.1", .op = "send", .size = 2048,
		.passed_size = 1024, .result = PING_RES_TIMEOUT, .have_facts = true,
		.local_netdev = "eth0",
	};

	f.local.netdev_mtu = local_mtu;
	f.local.active_mtu = local_mtu >= 4176 ? 4096 : 1024;
	f.peer.netdev_mtu = peer_mtu;
	f.peer.active_mtu = peer_mtu >= 4176 ? 4096 : 1024;
	return f;
}

int main(void)
{
	static const uint32_t all[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
					8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576 };
	static const uint32_t mixed[] = { 1, 100, 4096, 65536 };
	struct ping_facts f = { .version = "0.1.0-42-gabcd", .device = "rxe_enp0s31f6x",
				.driver = PING_DRV_BUNDLED, .netdev_mtu = 9000, .active_mtu = 4096,
				.buf_size = 1048576 }, g;
	struct ping_ctrl c = { PING_OP_VERIFY, 65536, 0xdeadbeef, 7 }, c2;
	uint8_t wire[PING_REP_LEN], msg[4096], cbuf[PING_CTRL_LEN];
	struct ping_failure fl;
	struct ping_diag d;
	char s[32];

	tap_plan(53);

	/* Size lists */
	ok(sizes_are(PING_DEFAULT_SIZES, all, 21), "the default sizes are the 21 powers of two from 1 B to 1 MiB");
	ok(sizes_are("4K,1,64K,100,4096", mixed, 4), "a list is sorted and loses its duplicates");
	ok(sizes_are("1-1M", all, 21) && sizes_are("1-1024,2K-1M", all, 21),
	   "ranges step by powers of two and can be combined");
	ok(sizes_are("3-8", (const uint32_t[]){ 3, 6 }, 2), "a range doubles from its start and stops at its end");
	ok(sizes_refused("", "empty"), "an empty size list is refused");
	ok(sizes_refused("0", "out of range"), "a zero size is refused");
	ok(sizes_refused("65M", "out of range") && sizes_refused("99999999999", "out of range"),
	   "sizes above 64 MiB are refused");
	ok(sizes_refused("abc", "not a size"), "a word is not a size");
	ok(sizes_refused("4k,", "ends with a comma"), "a trailing comma is refused");
	ok(sizes_refused("8-4", "downwards"), "a range going downwards is refused");
	ok(sizes_refused("1G", "not a size"), "only K and M suffixes exist");
	ping_size_str(1048576, s, sizeof(s));
	ok(!strcmp(s, "1M"), "1048576 prints as 1M");
	ping_size_str(100, s, sizeof(s));
	ok(!strcmp(s, "100"), "100 prints as 100");

	/* Facts on the wire */
	memset(f.gid, 0, 16);
	f.gid[10] = f.gid[11] = 0xff;
	f.gid[12] = 192, f.gid[13] = 0, f.gid[14] = 2, f.gid[15] = 1;
	ok(ping_facts_encode(&f, wire, PING_FACTS_LEN - 1) == 0, "encoding needs 56 bytes");
	ok(ping_facts_encode(&f, wire, sizeof(wire)) == PING_FACTS_LEN,
	   "the facts take exactly the 56 bytes RDMA CM leaves in a REQ");
	ok(ping_facts_decode(wire, PING_FACTS_LEN, &g) == 0, "the facts decode");
	ok(g.netdev_mtu == 9000 && g.active_mtu == 4096 && g.buf_size == 1048576 &&
	   g.driver == PING_DRV_BUNDLED && !memcmp(g.gid, f.gid, 16),
	   "MTUs, buffer size, driver and GID survive the round trip");
	ok(!strcmp(g.version, "0.1.0-42-gabcd"), "a 14-character version fills its field and survives");
	ok(!strcmp(g.device, "rxe_enp0s31f6x"), "a 14-character device name fills its field and survives");
	ping_gid_str(g.gid, s, sizeof(s));
	ok(!strcmp(s, "::ffff:192.0.2.1"), "the GID prints as an IPv4-mapped address");
	ok(ping_facts_decode(wire, PING_FACTS_LEN - 1, &g) == -EINVAL, "short private data is refused");
	wire[0] = 'Z';
	ok(ping_facts_decode(wire, PING_FACTS_LEN, &g) == -EINVAL, "another program's private data is refused");
	wire[0] = 'R';
	wire[2] = PING_WIRE_VERSION + 1;
	ok(ping_facts_decode(wire, PING_FACTS_LEN, &g) == -EPROTO, "another wire version is told apart");
	ok(!strcmp(ping_driver_str(PING_DRV_INTREE), "in-tree rxe") &&
	   !strcmp(ping_driver_str(99), "unknown"), "drivers have names");
	ping_ctrl_encode(&c, cbuf);
	ping_ctrl_decode(cbuf, &c2);
	ok(!memcmp(&c, &c2, sizeof(c)) && cbuf[0] == 0 && cbuf[3] == PING_OP_VERIFY,
	   "control messages round-trip, big-endian");

	/* Patterns */
	ping_pattern_fill(msg, sizeof(msg), 42);
	ok(ping_pattern_check(msg, sizeof(msg), 42) == -1, "a filled buffer checks clean");
	ok(memcmp(msg, msg + 256, 256) != 0, "the pattern does not repeat every 256 bytes");
	msg[3000] ^= 1;
	ok(ping_pattern_check(msg, sizeof(msg), 42) == 3000, "one flipped bit is found at its offset");
	ok(ping_pattern_check(msg, 16, 43) == 0, "another seed gives other bytes");

	/* Diagnosis */
	fl = (struct ping_failure){ .stage = PING_STAGE_NAME, .host = "nosuch", .detail = "Name or service not known" };
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "name") && strstr(d.message, "nosuch does not resolve"), "a name that does not resolve");
	fl = (struct ping_failure){ .stage = PING_STAGE_ADDR, .host = "h", .addr = "192.0.2.1", .err = -ENODEV, .local_netdev = "eth1" };
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "device") && strstr(d.message, "rxectl up eth1"), "no RDMA device on the way out: create one");
	fl.err = -ENETUNREACH;
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "address") && strstr(d.message, "not routable"), "no route to the address");
	fl.err = -ETIMEDOUT;
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "address") && strstr(d.message, "ip neigh"), "no neighbour answers ARP");
	fl = (struct ping_failure){ .stage = PING_STAGE_ROUTE, .host = "h", .err = -ETIMEDOUT };
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "route"), "route resolution failed");
	fl = (struct ping_failure){ .stage = PING_STAGE_CONNECT, .host = "192.0.2.1", .reject_reason = 8 };
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "listener") && strstr(d.message, "listener is not running"),
	   "a REJ for an unknown service: the listener is not running");
	fl = (struct ping_failure){ .stage = PING_STAGE_CONNECT, .host = "h", .reject_reason = 28,
				    .reject_text = "it is busy with another client; try again in a moment." };
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "busy") && strstr(d.message, "busy"), "a busy listener says so");
	fl = (struct ping_failure){ .stage = PING_STAGE_CONNECT, .host = "192.0.2.1", .timed_out = true,
				    .udp_probe = PING_PROBE_REFUSED, .local_fw = PING_FW_UNKNOWN };
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "no_rxe") && strstr(d.message, "no rxe"), "CM silence and port unreachable: no rxe device on the peer");
	fl.udp_probe = PING_PROBE_SILENT;
	fl.local_fw = PING_FW_FILTERED;
	fl.local_fw_text = "table inet t chain in drops it";
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "firewall") && strstr(d.message, "filtered on this side: table inet t"),
	   "CM silence with UDP 4791 filtered here: this side's firewall, with the rule");
	fl.local_fw = PING_FW_OPEN;
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "cm") && strstr(d.message, "is not filtered on this side") &&
	   strstr(d.message, "rxectl doctor` on 192.0.2.1"),
	   "CM silence, nothing filtered here: the CM layer, run the doctor on the peer");

	fl = transfer_failure(9000, 1500);
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "mtu") && strstr(d.message, "MTU 9000 (RoCE active MTU 4096)") &&
	   strstr(d.message, "MTU 1500 (RoCE active MTU 1024)") && strstr(d.message, "up to 1K bytes pass") &&
	   strstr(d.message, "`ip link set dev eth0 mtu 1500` here"),
	   "large messages never complete and the MTUs differ: an MTU mismatch naming both and the fix");
	fl = transfer_failure(1500, 9000);
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "mtu") && strstr(d.message, "mtu 1500` on 192.0.2.1"),
	   "when the peer has the larger MTU, the fix is on the peer");
	fl = transfer_failure(1500, 1500);
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "transfer") && strstr(d.message, "same MTU"),
	   "large messages lost with equal MTUs: something on the path");
	fl = transfer_failure(9000, 1500);
	fl.passed_size = 0;
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "transfer"), "nothing ever passed: not called an MTU problem");
	fl = transfer_failure(1500, 1500);
	fl.result = PING_RES_WC_ERROR;
	fl.wc_status_str = "remote access error";
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "remote_access"), "a remote access error is named");
	fl.result = PING_RES_MISMATCH;
	fl.bad_offset = 17;
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "data") && strstr(d.message, "byte 17"), "corrupted data names the first bad byte");
	fl.result = PING_RES_PEER_GONE;
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "peer_gone"), "a peer that disconnects mid-test is named");

	/* issue 37: equal MTUs, 256K (256 full-size packets) passed, the 512K READ timed out */
	fl = transfer_failure(1500, 1500);
	fl.op = "read";
	fl.passed_size = 256 << 10;
	fl.size = 512 << 10;
	fl.waited_s = 10;
	fl.local_ctr = (struct ping_counters){ true, { 12, 0, 3, 0, PING_COUNTER_UNKNOWN } };
	fl.peer_ctr = (struct ping_counters){ true, { 0, 0, 0, 7, 41 } };
	ok(ping_is_loss(&fl), "a timeout after a multi-packet message passed is loss");
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "loss") && strstr(d.message, "up to 256K bytes pass (256 packets of up "
	   "to 1024 bytes") && strstr(d.message, "read of 512K bytes did not complete in the 10 s "
	   "waited") && !strstr(d.message, "drops large frames") && !strstr(d.message, "MTU of every"),
	   "loss, not a frame-size problem: %s", d.message);
	ok(strstr(d.message, "this side, during the test: completer_retry_err 12, retry_exceeded_err 0, "
		  "rcvd_seq_err 3, out_of_seq_request 0;") &&
	   strstr(d.message, "192.0.2.1, since its device was created: completer_retry_err 0, "
		  "retry_exceeded_err 0, rcvd_seq_err 0, out_of_seq_request 7, duplicate_request 41.") &&
	   strstr(d.message, "--timeout 30") && strstr(d.message, "--sizes 1-256K"),
	   "both sides' counters, the time waited, and --timeout/--sizes to try");
	fl.peer_ctr.known = false;
	fl.result = PING_RES_WC_ERROR;
	fl.wc_status_str = "transport retry counter exceeded";
	diagnose(&fl, &d);
	ok(!strcmp(d.layer, "loss") && strstr(d.message, "before the transport gave up retrying "
	   "(transport retry counter exceeded)") && strstr(d.message, "not known (it did not answer"),
	   "retries exhausted after large messages passed: loss too; unknown peer counters are said");
	{
		struct ping_counters a = { true, { 1, 2, 3, (uint64_t)1 << 40, PING_COUNTER_UNKNOWN } }, b;
		uint8_t w[PING_COUNTERS_LEN];

		ok(ping_counters_encode(&a, w, sizeof(w)) == PING_COUNTERS_LEN &&
		   ping_counters_decode(w, sizeof(w), &b) == 0 && b.known &&
		   !memcmp(a.v, b.v, sizeof(a.v)), "the counters answer round-trips");
		for (size_t i = 0; i < PING_N_COUNTERS; i++)
			a.v[i] = PING_COUNTER_UNKNOWN;
		ping_counters_encode(&a, w, sizeof(w));
		fl.peer_ctr = (struct ping_counters){ 0 };
		ok(ping_counters_decode(w, sizeof(w), &fl.peer_ctr) == 0 &&
		   (diagnose(&fl, &d), strstr(d.message, "since its device was created: not known (its "
					   "driver keeps none)")),
		   "a listener whose driver keeps no counters says so: %s", d.message);
		ok(ping_counters_decode(w, sizeof(w) - 1, &b) < 0 && !b.known &&
		   ping_counters_decode((const uint8_t *)"RXit is busy", 13, &b) < 0,
		   "a short answer or a listener's sentence is not counters");
	}
	return tap_done();
}
