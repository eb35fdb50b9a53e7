#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl ping on this host: arguments and their exit codes, and the diagnosis when the host
# itself has no RDMA CM.  The two-host behaviour is in tests/guest/pair/ping_*.bats.

bats_require_minimum_version 1.5.0

setup() {
	RXECTL="$BATS_TEST_DIRNAME/../../rxectl"
	[ -x "$RXECTL" ] || skip "build rxectl first (make)"
}

no_rdma_cm() {
	[ ! -e /dev/infiniband/rdma_cm ]
}

@test "ping is in the command list" {
	run -0 "$RXECTL" --help
	[[ "$output" == *"  ping "*"name the layer that fails"* ]]
}

@test "ping --help prints both forms of the usage" {
	run -0 "$RXECTL" ping --help
	[[ "$output" == "usage: rxectl ping --listen [--port P] [DEVICE|ADDRESS] | HOST [--port P] [--count N] [--timeout SEC] [--sizes LIST] [--json]"* ]]
}

@test "ping without a host or --listen is a usage error" {
	run -2 "$RXECTL" ping
	[[ "$output" == *"rxectl: give the HOST to ping, or --listen on the other side."* ]]
}

@test "a malformed --sizes list is bad input naming the item" {
	run -2 "$RXECTL" ping 192.0.2.1 --sizes 1,4X
	[[ "$output" == *"rxectl: --sizes: '4X' is not a size or a range like 1-1M."* ]]
	run -2 "$RXECTL" ping 192.0.2.1 --sizes 1-128M
	[[ "$output" == *"'1-128M' is out of range: sizes are 1 to 64M bytes"* ]]
	run -2 "$RXECTL" ping 192.0.2.1 --sizes 64K-1K
	[[ "$output" == *"the range '64K-1K' goes downwards"* ]]
}

@test "out-of-range --count, --timeout and --port are bad input" {
	run -2 "$RXECTL" ping 192.0.2.1 --count 0
	[[ "$output" == *"--count takes a number from 1 to 1000000, not '0'."* ]]
	run -2 "$RXECTL" ping 192.0.2.1 --timeout soon
	[[ "$output" == *"--timeout takes seconds from 1 to 3600, not 'soon'."* ]]
	run -2 "$RXECTL" ping 192.0.2.1 --port 70000
	[[ "$output" == *"--port takes a port number from 1 to 65535, not '70000'."* ]]
}

@test "an unknown option, a missing value or a second host is bad input" {
	run -2 "$RXECTL" ping 192.0.2.1 --frobnicate
	[[ "$output" == *"rxectl: unknown option '--frobnicate' for ping;"* ]]
	run -2 "$RXECTL" ping 192.0.2.1 --count
	[[ "$output" == *"rxectl: option --count needs a value (N)."* ]]
	run -2 "$RXECTL" ping 192.0.2.1 192.0.2.2
	[[ "$output" == *"rxectl: ping takes one HOST (or, with --listen, one DEVICE or ADDRESS), but also got '192.0.2.2'."* ]]
}

@test "a host name that does not resolve is named as such (exit 1)" {
	run -1 --separate-stderr "$RXECTL" ping --json no-such-host.invalid
	jq -e '.result == "fail" and .diagnosis.layer == "name"' <<< "$output"
	[[ "$stderr" == "rxectl: no-such-host.invalid does not resolve to an address: "* ]]
}

@test "without RDMA CM on this host the client says so (exit 1, JSON diagnosis)" {
	no_rdma_cm || skip "this host has RDMA CM"
	run -1 --separate-stderr "$RXECTL" ping --json 192.0.2.1 --timeout 2
	jq -e '.host == "192.0.2.1" and .port == 7174 and .result == "fail"
		and .diagnosis.layer == "device" and (.results | not)' <<< "$output"
	[[ "$stderr" == "rxectl: RDMA CM is not available on this host"*"rxectl up NETDEV"* ]]
}

@test "without RDMA CM on this host the listener says so and exits 1" {
	no_rdma_cm || skip "this host has RDMA CM"
	run -1 "$RXECTL" ping --listen 127.0.0.1
	[[ "$output" == "rxectl: RDMA CM is not available on this host"* ]]
}
