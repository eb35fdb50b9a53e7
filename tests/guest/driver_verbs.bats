#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Unmodified verbs programs (rdma-core's pingpongs, perftest) on the bundled rdma_rxe, server
# and client in one guest over one device (loopback); then a clean kernel log.
#   tests/vm/vm-run -- bats tests/guest/driver_verbs.bats

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
	rxe0_up bundled
}

teardown_file() {
	rxe0_down
}

# Run PROGRAM ARGS... as server and as client to 127.0.0.1 on one device; both must exit 0.
# The client's output is left in $output. perftest measures the CPU clock against gettimeofday
# for every report line and gives up ("Can't produce a report") when the two disagree, as they
# do in a TCG guest on a busy host: such a run says nothing about the driver and runs again
# (at most three times).
loopback() {
	local try
	for try in 1 2 3; do
		loopback_once "$@" && return 0
		perftest_uncalibrated "$output" "$(cat "$BATS_TEST_TMPDIR/server.out")" || break
		echo "# perftest could not calibrate its clock (run $try), again" >&3
	done
	# what a failure needs to be told apart: a stall (retransmit timeouts, RNR), a drop, a bug
	echo "client:"; echo "$output"; echo "server:"; cat "$BATS_TEST_TMPDIR/server.out"
	echo "device counters:"; rdma statistic show link rxe0/1 2>&1 | tr ' ' '\n' | paste - - | grep -v '\s0$' || true
	echo "kernel log:"; dmesg | tail -n 20
	return 1
}

loopback_once() {
	local srv_out="$BATS_TEST_TMPDIR/server.out" srv
	"$@" > "$srv_out" 2>&1 &
	srv=$!
	sleep 0.5
	run timeout 120 "$@" 127.0.0.1
	local crc=$status src=0
	wait "$srv" || src=$?	# not a bare wait: bats' errexit would stop before the server's output
	echo "# client exit $crc, server exit $src" >&3
	[ "$crc" = 0 ] && [ "$src" = 0 ]
}

@test "ibv_rc_pingpong moves 1-byte messages and checks them" {
	loopback ibv_rc_pingpong -d rxe0 -g "$(gid_index)" -n 50 -s 1 -c
	[[ "$output" == *"50 iters"* ]]
}

@test "ibv_rc_pingpong moves 4 KiB messages and checks them" {
	loopback ibv_rc_pingpong -d rxe0 -g "$(gid_index)" -n 50 -s 4096 -c
	[[ "$output" == *"50 iters"* ]]
}

@test "ibv_rc_pingpong moves 64 KiB multi-packet messages and checks them" {
	loopback ibv_rc_pingpong -d rxe0 -g "$(gid_index)" -n 50 -s 65536 -c
	[[ "$output" == *"50 iters"* ]]
}

@test "ibv_rc_pingpong works with completion events instead of polling" {
	loopback ibv_rc_pingpong -d rxe0 -g "$(gid_index)" -n 50 -s 2048 -e -c
	[[ "$output" == *"50 iters"* ]]
}

@test "ibv_ud_pingpong exchanges datagrams through address handles" {
	loopback ibv_ud_pingpong -d rxe0 -g "$(gid_index)" -n 50 -s 1024
	[[ "$output" == *"50 iters"* ]]
}

@test "ibv_srq_pingpong shares one receive queue among 16 QPs" {
	loopback ibv_srq_pingpong -d rxe0 -g "$(gid_index)" -n 50 -s 4096 -q 16
	[[ "$output" == *"iters"* ]]
}

@test "ib_send_bw completes 64 KiB sends" {
	loopback ib_send_bw -d rxe0 -x "$(gid_index)" -n 200
	[[ "$output" == *"65536"*"200"* ]]
}

@test "ib_write_bw completes 64 KiB RDMA writes" {
	loopback ib_write_bw -d rxe0 -x "$(gid_index)" -n 200
	[[ "$output" == *"65536"*"200"* ]]
}

@test "ib_read_bw completes 64 KiB RDMA reads" {
	loopback ib_read_bw -d rxe0 -x "$(gid_index)" -n 200
	[[ "$output" == *"65536"*"200"* ]]
}

@test "ib_atomic_bw completes fetch-and-add and compare-and-swap" {
	loopback ib_atomic_bw -d rxe0 -x "$(gid_index)" -n 200
	[[ "$output" == *" 8 "*"200"* ]]
	loopback ib_atomic_bw -d rxe0 -x "$(gid_index)" -n 200 -A CMP_AND_SWAP
	[[ "$output" == *" 8 "*"200"* ]]
}

@test "ib_write_lat completes small inline RDMA writes" {
	loopback ib_write_lat -d rxe0 -x "$(gid_index)" -n 200
	[[ "$output" == *" 2 "*"200"* ]]
}

@test "ib_send_bw completes every message size from 2 bytes to 8 MiB" {
	loopback ib_send_bw -d rxe0 -x "$(gid_index)" -n 5 -a
	[[ "$output" == *"8388608"* ]]
}

@test "ib_write_bw runs both directions at once on 4 QPs" {
	loopback ib_write_bw -d rxe0 -x "$(gid_index)" -n 100 -b -q 4
	[[ "$output" == *"65536"*"400"* ]]
}

@test "ib_send_bw runs both directions at once through ibv_post_send" {
	loopback ib_send_bw -d rxe0 -x "$(gid_index)" -n 100 -b --use_old_post_send
	[[ "$output" == *"65536"*"100"* ]]
}

@test "ibv_rc_pingpong and ib_read_bw also run over the IPv6 link-local GID (index 0)" {
	loopback ibv_rc_pingpong -d rxe0 -g 0 -n 20 -s 65536 -c
	[[ "$output" == *"20 iters"* ]]
	loopback ib_read_bw -d rxe0 -x 0 -n 100
	[[ "$output" == *"65536"*"100"* ]]
}

@test "killing one side of a two-way loopback ib_send_bw mid-run, 6 times, leaves a working device" {
	# Each side's doorbell runs the other side's QP in its own context (nested), so a QP is
	# destroyed (by its process's exit) while the peer's system calls are running it: destroy
	# must wait for those runs, and the survivor only sees its peer go silent.
	local g i srv cli
	g=$(gid_index)
	for i in 1 2 3 4 5 6; do
		ib_send_bw -d rxe0 -x "$g" -b -D 20 -p $((18600 + i)) >/dev/null 2>&1 &
		srv=$!
		sleep 1
		ib_send_bw -d rxe0 -x "$g" -b -D 20 -p $((18600 + i)) 127.0.0.1 >/dev/null 2>&1 &
		cli=$!
		sleep 4
		if [ $((i % 2)) = 1 ]; then kill -9 "$srv"; else kill -9 "$cli"; fi
		sleep 0.5
		kill -9 "$srv" "$cli" 2>/dev/null || true
		wait "$srv" "$cli" 2>/dev/null || true
	done
	# no QP is left behind, and the device still moves data
	run -0 rdma resource show qp
	! grep -q 'type RC' <<<"$output"
	loopback ibv_rc_pingpong -d rxe0 -g "$g" -n 50 -s 4096 -c
	[[ "$output" == *"50 iters"* ]]
}

@test "rxectl status calls the driver bundled, and rxectl test passes every RC operation" {
	local rxectl="$RXECTL"
	[ -x "$rxectl" ] || skip "rxectl not built"
	run -0 "$rxectl" --json status
	[[ "$output" == *'"driver": "bundled"'* ]]
	run -0 timeout 300 "$rxectl" test
	[[ "$output" == *"result: pass"* ]]
}

@test "the device can be deleted and the module removed after traffic" {
	run -0 rdma link del rxe0
	run -0 rmmod rdma_rxe
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	kernel_log_clean
}
