#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Both guests of a pair run the bundled rdma_rxe (the only Soft-RoCE on Debian's cloud kernels):
# unmodified verbs programs between them in both directions, on whatever kernel row the bed
# boots (make check-kernels runs it on every row). Small counts: TCG guests.

bats_require_minimum_version 1.5.0
load ../lib

setup_file() {
	[ -n "${VM_ROLE:-}" ] || skip "not in a pair of test bed guests"
	load_bundled_driver
	rdma link add rxe0 type rxe netdev eth0
	barrier loaded
}

teardown_file() {
	rdma link del rxe0 2>/dev/null || true
	rmmod rdma_rxe 2>/dev/null || true
}

@test "both guests run the bundled rdma_rxe built for this kernel" {
	[[ "$(cat /sys/module/rdma_rxe/version)" == rxectl-bundled-* ]]
	[ "$(cat "/sys/class/infiniband/rxe0/ports/1/state")" = "4: ACTIVE" ]
}

@test "ibv_rc_pingpong with 64 KiB checked messages, a serves" {
	between rc1 a ibv_rc_pingpong -d rxe0 -g "$(gid_index)" -n 20 -s 65536 -c
}

@test "ibv_rc_pingpong with 64 KiB checked messages, b serves" {
	between rc2 b ibv_rc_pingpong -d rxe0 -g "$(gid_index)" -n 20 -s 65536 -c
}

@test "ibv_ud_pingpong between the two bundled drivers" {
	between ud a ibv_ud_pingpong -d rxe0 -g "$(gid_index)" -n 20 -s 1024
}

@test "ib_write_bw and ib_read_bw between the two bundled drivers" {
	between wr a ib_write_bw -d rxe0 -x "$(gid_index)" -n 100
	between rd b ib_read_bw -d rxe0 -x "$(gid_index)" -n 100
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	run dmesg
	! grep -E 'WARNING|BUG|Oops|refcount|lockdep|circular locking|general protection' <<<"$output"
}
