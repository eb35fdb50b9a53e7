#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The verbs of the bundled rdma_rxe beyond the RC basics (issue 11), over loopback in one guest:
# IB_EVENT_QP_LAST_WQE_REACHED for QPs on an SRQ (tests/driver/rxe_extra, and nvmet-rdma with
# use_srq=1 carrying NVMe I/O), ibv_resize_cq, SRQ resize (ibv_modify_srq), UC QPs (rdma-core's
# ibv_uc_pingpong, and rxe_extra for WRITE, the silent drops and the refused READ), UD multicast (rdma-core's mckey
# over the RDMA CM, and rxe_extra through ibv_attach_mcast); then a clean kernel log. The stock
# rdma_rxe runs the same rxe_extra cases last, as a reference (printed, not judged, but for
# post-state and resize-srq, where the bundled driver claims stock's rules).
#   tests/run-all tests/guest/driver_extra.bats

bats_require_minimum_version 1.5.0
load lib
load ulp

NQN=$ULP_NQN
CFS=$ULP_CFS
BAD='WARNING|BUG|Oops|refcount|lockdep|circular locking|general protection|ref leak|hung_task|blocked for more than'

setup_file() {
	require_guest
	test_prog rxe_extra
	dmesg -C
}

teardown_file() {
	nvme disconnect -n "$NQN" >/dev/null 2>&1 || true
	rm -f "$CFS/ports/1/subsystems/$NQN" 2>/dev/null || true
	rmdir "$CFS/ports/1" "$CFS/subsystems/$NQN/namespaces/1" "$CFS/subsystems/$NQN" 2>/dev/null || true
	modprobe -r nvme-rdma nvmet-rdma nvmet null_blk 2>/dev/null || true
	rdma link del rxe0 2>/dev/null || true
	rmmod rdma_rxe 2>/dev/null || true
}

# extra TEST: rxe_extra TEST on rxe0 must print "ok TEST".
extra() {
	run timeout 60 "$BATS_FILE_TMPDIR/rxe_extra" rxe0 "$(gid_index)" "$1"
	echo "$output"
	[ "$status" = 0 ]
	[ "${lines[-1]}" = "ok $1" ]
}

@test "bundled rxe0 on eth0" {
	load_bundled_driver
	rdma link add rxe0 type rxe netdev eth0
	[[ "$(cat /sys/module/rdma_rxe/version)" == rxectl-bundled-* ]]
}

@test "an SRQ QP moved to ERR raises LAST_WQE_REACHED once; the SRQ keeps its receives for other QPs" {
	extra last-wqe
}

@test "an SRQ QP in error by a fault raises QP_FATAL, then LAST_WQE_REACHED" {
	extra last-wqe-fault
}

@test "a QP without an SRQ moved to ERR raises no LAST_WQE_REACHED" {
	extra last-wqe-no-srq
}

@test "ibv_resize_cq grows with completions waiting (kept in order), refuses too small, 0 and > max_cqe" {
	extra resize-cq
}

@test "ibv_modify_srq MAX_WR grows a full SRQ (its receives kept in order), refuses too small, 0, > max_srq_wr, < limit; shrinks an empty one" {
	extra resize-srq
}

@test "UC: RDMA WRITE with and without immediate and SEND with immediate, 1 byte to 256 KiB, land exactly" {
	extra uc-data
}

@test "UC: a bad rkey, no receive posted or a too small receive drop the message silently; the QPs stay in RTS" {
	extra uc-drop
}

@test "UC: an RDMA READ completes with a local QP operation error" {
	extra uc-read
}

@test "as stock: ibv_post_send on a QP in RESET, INIT or RTR, or moved back to RESET, is EINVAL; in ERR it flushes" {
	extra post-state
}

@test "ibv_uc_pingpong (unmodified) moves 4 KiB UC messages and checks them" {
	local g srv
	g=$(gid_index)
	ibv_uc_pingpong -d rxe0 -g "$g" -n 200 -s 4096 -c > "$BATS_TEST_TMPDIR/server.out" 2>&1 &
	srv=$!
	sleep 0.5
	run timeout 120 ibv_uc_pingpong -d rxe0 -g "$g" -n 200 -s 4096 -c 127.0.0.1
	echo "client: $output"; echo "server: $(cat "$BATS_TEST_TMPDIR/server.out")"
	wait "$srv"
	[ "$status" = 0 ]
	[[ "$output" == *"200 iters"* ]]
}

@test "UD multicast through ibv_attach_mcast: every attached QP gets the datagram, the netdev joins and leaves the group" {
	extra mcast
	extra mcast-rc
}

@test "mckey (unmodified, RDMA CM): a receiver and a sender on one guest, 10 datagrams over the group" {
	local rcv rc=0
	mckey -m 239.1.1.7 -b "$VM_SELF_IP" -C 10 > "$BATS_TEST_TMPDIR/rcv.out" 2>&1 &
	rcv=$!
	sleep 2
	run timeout 60 mckey -m 239.1.1.7 -b "$VM_SELF_IP" -C 10 -s
	echo "sender: $output"
	timeout 30 tail --pid="$rcv" -f /dev/null || { kill "$rcv"; rc=1; }
	wait "$rcv" || rc=$?
	echo "receiver (exit $rc): $(cat "$BATS_TEST_TMPDIR/rcv.out")"
	[ "$status" = 0 ]
	[ "$rc" = 0 ]
	grep -q 'data transfers complete' "$BATS_TEST_TMPDIR/rcv.out"
}

@test "nvmet-rdma with use_srq=1: connect, 16 MiB written and read back, disconnect, unload" {
	local m disk p="$BATS_FILE_TMPDIR/pattern"
	for m in nvmet nvmet-rdma nvme-rdma null_blk; do
		modinfo "$m" >/dev/null 2>&1 || skip "kernel $(uname -r) has no $m module"
	done
	modinfo -p nvmet-rdma | grep -q '^use_srq:' || skip "nvmet-rdma has no use_srq parameter"
	modprobe nvmet-rdma use_srq=1
	[ "$(cat /sys/module/nvmet_rdma/parameters/use_srq)" = Y ]
	nvmet_export
	run -0 nvme_rdma_connect
	disk=$(nvme_disk)
	head -c 16M /dev/urandom > "$p"
	timeout 300 dd if="$p" of="$disk" bs=1M oflag=direct conv=fsync status=none
	cmp "$p" <(timeout 300 dd if="$disk" bs=1M count=16 iflag=direct status=none)
	run -0 timeout 120 nvme disconnect -n "$NQN"
	[[ "$output" == *"disconnected 1 controller"* ]]
	nvmet_unexport
	timeout 120 modprobe -r nvme-rdma
	! grep -qE '^(nvme_rdma|nvmet_rdma|nvmet) ' /proc/modules
}

@test "rxe0 goes, rdma_rxe unloads, the kernel log is clean" {
	timeout 120 rdma link del rxe0
	timeout 120 rmmod rdma_rxe
	run dmesg
	! grep -E "$BAD" <<<"$output"
}

@test "stock rdma_rxe (reference only): the same rxe_extra cases, results printed" {
	local t
	modinfo rdma_rxe >/dev/null 2>&1 || skip "this kernel has no stock rdma_rxe"
	load_driver stock
	rdma link add rxe0 type rxe netdev eth0
	for t in last-wqe last-wqe-fault last-wqe-no-srq resize-cq resize-srq uc-data uc-drop uc-read mcast mcast-rc \
		post-state; do
		run timeout 60 "$BATS_FILE_TMPDIR/rxe_extra" rxe0 "$(gid_index)" "$t"
		echo "# stock $t: exit $status: $(tr '\n' ' ' <<<"$output")" >&3
	done
	# The bundled driver's post-state and resize-srq cases claim stock's behaviour: stock must
	# pass them too.
	for t in post-state resize-srq; do
		run timeout 60 "$BATS_FILE_TMPDIR/rxe_extra" rxe0 "$(gid_index)" "$t"
		[ "${lines[-1]}" = "ok $t" ]
	done
	timeout 120 rdma link del rxe0
	rmmod rdma_rxe
}
