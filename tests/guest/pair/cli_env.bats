#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# `rxectl env`: what it prints is what the real clients need. Each test evals `rxectl env --shell
# --for X` (pasted, never written by hand) and runs X's own client between the two guests over
# the wire: perftest, rping, qperf, fi_pingpong. Not UCX: Debian 12's UCX 1.13 ucx_perftest did not
# connect over rxe in the bed (rc_verbs alone: no auxiliary wireup transport; with ud_verbs: the UD
# endpoint timed out), not investigated yet. Plus --ibdev2netdev, --json and the
# errors on a device that has nothing to tell. Small counts: TCG guests.

bats_require_minimum_version 1.5.0
load pair_lib

setup_file() {
	[ -n "${VM_ROLE:-}" ] || skip "not in a pair of test bed guests"
	export RXECTL_CONFIG="$BATS_FILE_TMPDIR/rxe.conf"
	: > "$RXECTL_CONFIG"
	"$RXECTL" up eth0 --wait 20 >/dev/null
	barrier up
}

teardown() {
	pair_teardown	# a failure here fails the other guest's barriers at once, not in 10 min
}

teardown_file() {
	ip link del rxenv0 2>/dev/null || true
	"$RXECTL" down --all >/dev/null 2>&1 || true
}

# paste FRAMEWORK: eval `rxectl env --shell --for FRAMEWORK`, and show it in the TAP output
paste() {
	local sh
	sh=$("$RXECTL" env --shell --for "$1")
	eval "$sh"
	sed 's/^/# /' <<<"$sh" >&3
}

# show LINE...: a result line into the TAP output
show() {
	printf '# %s: %s\n' "$VM_ROLE" "$*" >&3
}

@test "env --shell --for perftest: ib_write_bw runs between the guests with the pasted arguments" {
	paste perftest
	[ "$RXE_DEVICE" = rxe_eth0 ] && [ "$RXE_NETDEV" = eth0 ] && [ "$RXE_PORT" = 1 ]
	[ "$RXE_GID_INDEX" = "$(gid_index rxe_eth0)" ]
	# shellcheck disable=SC2086	# the arguments are split on purpose, as a user's shell does
	between perftest a ib_write_bw $RXE_PERFTEST_ARGS -s 65536 -n 200
	show "$(grep -E '^ *65536 +200 ' <<<"$output")"
	grep -qE '^ *65536 +200 +[0-9.]+ +[0-9.]+' <<<"$output"
}

@test "env --shell --for rping: rping's server and client run with the pasted addresses" {
	paste rping
	[ "$RXE_IP" = "$VM_SELF_IP" ]
	if [ "$VM_ROLE" = a ]; then
		# shellcheck disable=SC2086
		between rping a rping $RXE_RPING_SERVER_ARGS -v -C 10
	else
		# shellcheck disable=SC2086
		between rping a rping $RXE_RPING_CLIENT_ARGS -v -C 10 -a
	fi
	show "$(grep -c 'ping data: rdma-ping-' <<<"$output") pings; last: $(grep 'ping data' <<<"$output" | tail -1)"
	[ "$(grep -c 'ping data: rdma-ping-' <<<"$output")" = 10 ]
}

@test "env --shell --for qperf: qperf's rc_bw and rc_lat run with the pasted arguments" {
	local srv
	paste qperf
	if [ "$VM_ROLE" = a ]; then
		qperf > "$BATS_TEST_TMPDIR/server" 2>&1 &
		srv=$!
		sleep 2
		barrier qperf-listening
		barrier qperf-done
		kill "$srv"
		wait "$srv" || true
	else
		barrier qperf-listening
		# shellcheck disable=SC2086
		run timeout 120 qperf $RXE_QPERF_ARGS "$VM_PEER_IP" -m 64k -t 2 rc_bw rc_lat
		barrier qperf-done
		echo "$output"
		show "$(tr -s ' \n' ' ' <<<"$output")"
		[ "$status" = 0 ]
		grep -qE 'bw += +[0-9.]+ [KMG]?B/sec' <<<"$output"
		grep -qE 'latency += +[0-9.]+ [mun]?s' <<<"$output"
		! grep -q warning <<<"$output"	# no argument qperf does not use
	fi
}

@test "env --shell --for libfabric: fi_pingpong over the verbs provider with the pasted settings" {
	paste libfabric
	[ "$FI_PROVIDER" = verbs ] && [ "$FI_VERBS_DEVICE_NAME" = rxe_eth0 ]
	between fi a fi_pingpong -p verbs -e msg -I 100 -S 4096
	show "$(grep -E '^ *(bytes|4k)' <<<"$output" | tr -s ' ' | tr '\n' '|')"
	grep -qE '^ *4k +100 ' <<<"$output"
}

@test "env --ibdev2netdev prints ibdev2netdev's line; --json carries the same settings" {
	run -0 "$RXECTL" env --ibdev2netdev
	show "$output"
	[ "$output" = "rxe_eth0 port 1 ==> eth0 (Up)" ]
	run -0 "$RXECTL" env eth0 --for nccl --for ceph --json
	g=$(gid_index rxe_eth0)
	[ "$(jq -r .device <<<"$output")" = rxe_eth0 ]
	[ "$(jq -r .gid_index <<<"$output")" = "$g" ]
	[ "$(jq -r .ip <<<"$output")" = "$VM_SELF_IP" ]
	[ "$(jq -r .frameworks.nccl.env.NCCL_IB_HCA <<<"$output")" = "=rxe_eth0:1" ]
	[ "$(jq -r .frameworks.nccl.env.NCCL_IB_GID_INDEX <<<"$output")" = "$g" ]
	# Ceph wants the GID as sysfs writes it
	[ "$(jq -r .frameworks.ceph.conf.ms_async_rdma_local_gid <<<"$output")" = \
	  "$(cat "/sys/class/infiniband/rxe_eth0/ports/1/gids/$g")" ]
	[ "$(jq -r '.frameworks | keys | join(",")' <<<"$output")" = ceph,nccl ]
	[ "$(jq -r .active_mtu <<<"$output")" -ge 256 ]
}

@test "env on a device with no RoCE v2 GID for an address says how to add one, exit 1" {
	ip link add rxenv0 type dummy
	sysctl -qw net.ipv6.conf.rxenv0.disable_ipv6=1
	ip link set rxenv0 up
	rdma link add rxenv0r type rxe netdev rxenv0
	run -1 --separate-stderr "$RXECTL" env rxenv0r --shell
	[ -z "$output" ]
	[ "$stderr" = "rxectl: rxenv0r has no RoCE v2 GID for an IP address of rxenv0, so there is nothing to tell an application; add one with \`ip addr add ADDRESS/PREFIX dev rxenv0\`." ]
	run -2 --separate-stderr "$RXECTL" env
	[[ "$stderr" == "rxectl: there are 2 rxe devices (rxe_eth0, rxenv0r); name one: \`rxectl env DEVICE\`."* ]]
	rdma link del rxenv0r
}
