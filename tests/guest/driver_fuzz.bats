#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# A long fuzz run (tests/driver/rxe_fuzz.py) against a live bundled RC QP: a loopback
# ibv_rc_pingpong on rxe1 (veth0, 198.51.100.1) runs while the network namespace "peer" at the
# other end of the veth sends RXE_FUZZ_PACKETS (default 60000, ~65 s, for CI's time budget,
# tests/vm/budget.md; more for a deep run) hostile packets in four runs with different seeds:
# half from the peer's own address, half spoofed from 198.51.100.1 itself (the live QP's path,
# so they pass the address check and reach the QP's state machine). Afterwards rxe1 must still
# carry a checked pingpong and the kernel log must be clean.
#   tests/run-all tests/guest/driver_fuzz.bats

bats_require_minimum_version 1.5.0
load lib

TOOLS="$TOP/tests/driver"
SELF=198.51.100.1
PEER=198.51.100.2

setup_file() {
	require_guest
	load_bundled_driver
	peer_ns_up "$SELF" "$PEER"
	# The spoofed packets carry our own address as source: accept them on veth0.
	sysctl -qw net.ipv4.conf.veth0.accept_local=1 net.ipv4.conf.veth0.rp_filter=0 \
		net.ipv4.conf.all.rp_filter=0
	rdma link add rxe1 type rxe netdev veth0
}

teardown_file() {
	peer_ns_down
}

counter() {
	cat "/sys/class/infiniband/rxe1/ports/1/hw_counters/$1"
}

# A checked loopback pingpong on rxe1 (server and client on this guest).
pingpong_ok() {
	ibv_rc_pingpong -d rxe1 -g "$(gid_index rxe1 "$SELF")" -p 18600 -n 20 -s 65536 -c >/dev/null 2>&1 &
	local s=$!
	sleep 1
	run -0 timeout 120 ibv_rc_pingpong -d rxe1 -g "$(gid_index rxe1 "$SELF")" -p 18600 -n 20 -s 65536 -c 127.0.0.1
	wait "$s"
}

@test "rxe1 carries a checked loopback pingpong before the fuzz" {
	pingpong_ok
}

@test "fuzz packets against a live RC QP leave the bundled driver working" {
	local total=${RXE_FUZZ_PACKETS:-60000} per srv cli seed src start secs queued dropped q0
	per=$((total / 4))
	ibv_rc_pingpong -d rxe1 -g "$(gid_index rxe1 "$SELF")" -p 18601 -n 100000000 -s 4096 >/dev/null 2>&1 &
	srv=$!
	sleep 1
	ibv_rc_pingpong -d rxe1 -g "$(gid_index rxe1 "$SELF")" -p 18601 -n 100000000 -s 4096 127.0.0.1 \
		>/dev/null 2>&1 &
	cli=$!
	sleep 3
	# The target QPs are live: both ends still run and pass traffic.
	kill -0 "$srv" && kill -0 "$cli"
	queued=$(($(counter rcvd_pkts) - $(counter loopback_pkts)))
	dropped=$(counter rcvd_dropped)
	start=$SECONDS
	for seed in 101 202 303 404; do
		src=$PEER
		[ $((seed % 2)) = 0 ] && src=$SELF
		q0=$(($(counter rcvd_pkts) - $(counter loopback_pkts)))
		run -0 timeout 1800 ip netns exec peer python3 "$TOOLS/rxe_fuzz.py" "$src" "$SELF" "$per" "$seed"
		echo "# seed $seed from $src: $output, $(($(counter rcvd_pkts) - $(counter loopback_pkts) - q0)) queued to a QP" >&3
	done
	secs=$((SECONDS - start))
	queued=$(($(counter rcvd_pkts) - $(counter loopback_pkts) - queued))
	dropped=$(($(counter rcvd_dropped) - dropped))
	echo "# fuzz: $((per * 4)) packets in ${secs} s against a live RC QP: $queued queued to a QP" \
		"(the pingpong's own loopback packets not counted), $dropped dropped before any QP" >&3
	# The pingpong may legitimately have been broken by a hostile packet; just stop it.
	kill "$srv" "$cli" 2>/dev/null || true
	wait "$srv" "$cli" 2>/dev/null || true
	pingpong_ok
	# Most fuzz packets name QPs that do not exist (1578 of 200000 reached one in a run), but
	# some must reach one: a wrong ICRC or an unrouted spoofed source would stop them all.
	[ "$queued" -gt $((total / 1000)) ]
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	run dmesg
	! grep -E 'WARNING|BUG|Oops|refcount|lockdep|circular locking|general protection' <<<"$output"
}
