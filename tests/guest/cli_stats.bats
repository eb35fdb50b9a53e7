#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl stats: the in-tree rdma_rxe's counters over RDMA netlink grow by what known traffic
# sends, for the in-tree and the bundled rdma_rxe (run in the VM test bed).

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
}

setup() {
	use_empty_config
	"$RXECTL" up eth0 >/dev/null
}

teardown() {
	"$RXECTL" down --all >/dev/null 2>&1 || true
}

# pingpong N: ibv_rc_pingpong between two QPs of rxe_eth0 (server and client on this guest),
# N iterations of one send each way per iteration.
pingpong() {
	local g
	g=$(gid_index rxe_eth0)
	ibv_rc_pingpong -d rxe_eth0 -g "$g" -s 512 -n "$1" >/dev/null 2>&1 &
	sleep 1
	ibv_rc_pingpong -d rxe_eth0 -g "$g" -s 512 -n "$1" 127.0.0.1 >/dev/null
	wait
}

counter() {	# counter JSON NAME
	jq -r --arg n "$2" '.devices[0].counters[$n]' <<<"$1"
}

@test "stats lists the in-tree driver's counters, as rdma statistic shows them" {
	run -0 --separate-stderr "$RXECTL" stats --json
	mine=$(jq -c '.devices[0].counters | keys' <<<"$output")
	theirs=$(rdma -j statistic show link rxe_eth0/1 | jq -c '.[0] | del(.ifname, .port) | keys')
	[ "$mine" = "$theirs" ]
	[ "$(jq -r '.devices[0].name' <<<"$output")" = rxe_eth0 ]
	run -0 "$RXECTL" stats rxe_eth0
	[ "${lines[0]}" = "rxe_eth0 on eth0:" ]
	[[ "$output" == *"  rdma_sends "*"  rdma_recvs "* ]]
}

@test "20 sends each way add 40 to rdma_sends and rdma_recvs" {
	before=$("$RXECTL" stats --json)
	pingpong 20
	after=$("$RXECTL" stats eth0 --json)
	[ $(( $(counter "$after" rdma_sends) - $(counter "$before" rdma_sends) )) -eq 40 ]
	[ $(( $(counter "$after" rdma_recvs) - $(counter "$before" rdma_recvs) )) -eq 40 ]
	sent=$(( $(counter "$after" sent_pkts) - $(counter "$before" sent_pkts) ))
	rcvd=$(( $(counter "$after" rcvd_pkts) - $(counter "$before" rcvd_pkts) ))
	# loopback: every packet sent is received; each 512-byte send is one packet, plus ACKs
	[ "$sent" -eq "$rcvd" ] && [ "$sent" -ge 40 ]
	[ "$(counter "$after" rcvd_seq_err)" -eq 0 ]
}

@test "stats --watch prints the change per interval" {
	( sleep 1.5; pingpong 5 ) &
	run -124 --separate-stderr timeout 8 "$RXECTL" stats --watch 1 --json
	wait
	# one JSON document per interval; the rdma_sends deltas add up to the traffic
	total=$(jq -s '[.[].devices[0].delta.rdma_sends] | add' <<<"$output")
	[ "$total" -eq 10 ]
	[ "$(jq -s '.[0].interval_ms' <<<"$output")" -eq 1000 ]
}

@test "stats --watch text shows only what changed" {
	run -124 timeout 2.5 "$RXECTL" stats --watch 1
	[ "${lines[0]}" = "rxe_eth0 on eth0, change:" ]
	[ "${lines[1]}" = "  (no change)" ]
}

@test "stats rejects bad input with exit 2" {
	run -2 "$RXECTL" stats --watch 0
	[[ "$output" == *"--watch needs a number of seconds from 0.1 to 3600, not '0'."* ]]
	run -2 "$RXECTL" stats --watch
	run -2 "$RXECTL" stats rxe_eth0 eth0
	[[ "$output" == *"stats takes at most one DEVICE or NETDEV"* ]]
}

@test "the bundled driver: stats shows its counters, 20 sends each way add 40, doctor reads them" {
	"$RXECTL" down --all >/dev/null
	load_bundled_driver
	"$RXECTL" up eth0 >/dev/null
	run -0 --separate-stderr "$RXECTL" stats --json
	mine=$(jq -c '.devices[0].counters | keys' <<<"$output")
	theirs=$(rdma -j statistic show link rxe_eth0/1 | jq -c '.[0] | del(.ifname, .port) | keys')
	[ "$mine" = "$theirs" ]
	[[ "$mine" == *'"rdma_sends"'* && "$mine" == *'"loopback_pkts"'* ]]
	before=$("$RXECTL" stats --json)
	pingpong 20
	after=$("$RXECTL" stats eth0 --json)
	[ $(( $(counter "$after" rdma_sends) - $(counter "$before" rdma_sends) )) -eq 40 ]
	[ $(( $(counter "$after" rdma_recvs) - $(counter "$before" rdma_recvs) )) -eq 40 ]
	run --separate-stderr "$RXECTL" doctor eth0 --json
	[ "$(jq -r '.checks[] | select(.id == "counters.errors") | .status' <<<"$output")" = pass ]
	"$RXECTL" down --all
	rmmod rdma_rxe
}

@test "doctor passes counters.errors when nothing is lost" {
	run --separate-stderr "$RXECTL" doctor eth0 --json
	[ "$(jq -r '.checks[] | select(.id == "counters.errors") | .status' <<<"$output")" = pass ]
	[[ "$(jq -r '.checks[] | select(.id == "counters.errors") | .summary' <<<"$output")" == "no error counter of rxe_eth0 grew during a 1000 ms sample." ]]
}
