#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Both guests of a pair run the bundled rdma_rxe (the only Soft-RoCE on Debian's cloud kernels):
# unmodified verbs programs between them in both directions, on whatever kernel row the bed
# boots (make check-kernels runs it on every row). Small counts: TCG guests.

bats_require_minimum_version 1.5.0
load pair_lib

setup_file() {
	[ -n "${VM_ROLE:-}" ] || skip "not in a pair of test bed guests"
	rxe0_up bundled
	barrier loaded
}

teardown() {
	pair_teardown
}

teardown_file() {
	rxe0_down
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

paged() {	# wire packets this guest's rxe0 read in place from page fragments
	rdma -j statistic show link rxe0/1 | jq '.[0].rcvd_paged'
}

# A wire packet's payload may lie in page fragments (virtio-net hands 4096-byte packets over in
# pages): the driver reads it there (ICRC, copies) instead of linearizing it. Both directions of
# SEND, READ and WRITE with their data checked, and each guest's counter must show it took that
# path. MTU 1500 again at the end.
@test "MTU 9000, 4096-byte packets: checked SENDs, rping's READs and WRITEs; packets in page fragments read in place" {
	local g p0 p1
	ip link set eth0 mtu 9000
	barrier mtu9000
	for _ in $(seq 50); do
		ibv_devinfo -d rxe0 | grep -q 'active_mtu:.*4096' && break
		sleep 0.2
	done
	ibv_devinfo -d rxe0 | grep 'active_mtu:.*4096'
	g=$(gid_index)
	p0=$(paged)
	between send9k a ibv_rc_pingpong -d rxe0 -g "$g" -m 4096 -n 20 -s 65536 -c
	barrier rping9k-start
	if [ "$VM_ROLE" = a ]; then
		touch "$VM_SHARED/rping9k-listening"
		run timeout 180 rping -s -a "$VM_SELF_IP" -p 7201 -C 10 -S 16384 -V
	else
		while [ ! -e "$VM_SHARED/rping9k-listening" ]; do sleep 0.5; done
		sleep 3
		run timeout 180 rping -c -a "$VM_PEER_IP" -p 7201 -C 10 -S 16384 -V
	fi
	echo "rping: status $status; ${output: -300}"
	barrier rping9k-done
	[ "$status" = 0 ]
	p1=$(paged)
	echo "# $VM_ROLE: rcvd_paged +$((p1 - p0)) over the 4096-byte path" >&3
	[ $((p1 - p0)) -gt 0 ]
	ip link set eth0 mtu 1500
	barrier mtu1500
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	kernel_log_clean
}
