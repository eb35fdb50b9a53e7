#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# NVMe over Fabrics (RDMA) on the bundled rdma_rxe, over loopback in one guest, as blktests runs
# it: the bundled driver on eth0, the kernel's nvmet + nvmet-rdma exporting a memory-backed
# null_blk namespace on the guest's own address, `nvme connect -t rdma` (nvme-rdma: fast-register
# MRs for every data transfer, remote invalidation by the target's SEND with Invalidate),
# 64 MiB of random bytes written and read back through the fabric and compared with what the
# target's device holds, `nvme disconnect`; then rxe0 deleted while reads run (the reader ends
# with an I/O error, the controller goes, nothing hangs), every module unloaded, the kernel log clean.
#   tests/run-all tests/guest/driver_nvmeof.bats
# The same over the kernel's own rdma_rxe, as a reference (the times it prints):
#   RXE_ULP_DRIVER=stock tests/vm/vm-run --env RXE_ULP_DRIVER -- bats tests/guest/driver_nvmeof.bats
# bench/ulp-vs-stock measures both drivers side by side.

bats_require_minimum_version 1.5.0
load lib
load ulp

NQN=$ULP_NQN
CFS=$ULP_CFS
MIB=64

setup_file() {
	require_guest
	local m
	for m in nvmet nvmet-rdma nvme-rdma null_blk; do
		modinfo "$m" >/dev/null 2>&1 || skip "kernel $(uname -r) has no $m module"
	done
	command -v nvme >/dev/null ||
		{ echo "nvme-cli is not installed: run scripts/setup-deps" >&2; return 1; }
	dmesg -C
}

teardown_file() {
	nvme disconnect -n "$NQN" >/dev/null 2>&1 || true
	rm -f "$CFS/ports/1/subsystems/$NQN" 2>/dev/null || true
	rmdir "$CFS/ports/1" "$CFS/subsystems/$NQN/namespaces/1" "$CFS/subsystems/$NQN" 2>/dev/null || true
	modprobe -r nvme-rdma nvmet-rdma nvmet null_blk 2>/dev/null || true
	rxe0_down
}

@test "bundled rxe0 on eth0; nvmet-rdma exports a memory-backed null_blk on the guest's own address" {
	[ "${RXE_ULP_DRIVER:-bundled}" = bundled ] || echo "# the kernel's own rdma_rxe (reference run)" >&3
	ulp_driver
	nvmet_export
	run dmesg
	grep -q 'nvmet_rdma: enabling port 1' <<<"$output"
}

@test "nvme connect -t rdma to the guest's own address gives a namespace (nvme-rdma on fast-register MRs)" {
	run -0 nvme_rdma_connect
	echo "$output"
	nvme_disk
	run dmesg
	echo "$output" | grep -E 'nvme|rdma' | tail -20
	grep -q "new ctrl: NQN \"$NQN\", addr $VM_SELF_IP:4420" <<<"$output"
	! grep -q 'Memory registrations not supported' <<<"$output"
}

@test "64 MiB of random bytes written over NVMe/RDMA read back identical, and are on the target's device" {
	local p="$BATS_FILE_TMPDIR/pattern"
	nvme_roundtrip "$p" "$MIB" ""
	# The bytes are on the exported device, not only in a cache on the initiator's side.
	cmp "$p" <(dd if=/dev/nullb0 bs=1M count="$MIB" iflag=direct status=none)
}

@test "nvme disconnect removes the namespace" {
	run -0 timeout 120 nvme disconnect -n "$NQN"
	[[ "$output" == *"disconnected 1 controller"* ]]
	! nvme_disk
}

@test "rxe0 deleted under NVMe I/O: the reader gets an I/O error, the controller goes, nothing hangs" {
	local disk pid rc start
	nvme_rdma_connect --ctrl-loss-tmo=1 --reconnect-delay=1
	disk=$(nvme_disk)
	# Reads without end (the namespace wraps round) until the device under them goes away.
	( while dd if="$disk" of=/dev/null bs=1M count=1024 iflag=direct status=none; do :; done ) &
	pid=$!
	sleep 3
	kill -0 "$pid"	# still reading: the I/O was in flight when the device went
	start=$(date +%s.%N)
	timeout 120 rdma link del rxe0
	echo "# rdma link del under I/O returned in $(secs "$start") s" >&3
	rc=0
	timeout 120 tail --pid="$pid" -f /dev/null || rc=$?
	[ "$rc" = 0 ] || { kill "$pid"; echo "the reader still runs 120 s after the device went" >&2; return 1; }
	echo "# the reader ended $(secs "$start") s after the delete" >&3
	# nvme-rdma's device-removal path deletes the controller and its namespace.
	for i in $(seq 300); do nvme_disk >/dev/null || break; sleep 0.2; done
	! nvme_disk
	run rdma link show
	[[ "$output" != *rxe0* ]]
}

@test "nvme-rdma, nvmet-rdma, nvmet, null_blk and rdma_rxe unload" {
	nvmet_unexport
	timeout 120 modprobe -r nvme-rdma
	timeout 120 rmmod rdma_rxe
	! grep -qE '^(nvme_rdma|nvmet_rdma|nvmet|null_blk|rdma_rxe) ' /proc/modules
}

@test "the kernel log has no WARNING, BUG, Oops, refcount, lockdep or hung task message" {
	kernel_log_clean
}
