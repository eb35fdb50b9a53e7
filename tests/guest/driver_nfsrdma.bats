#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# NFS over RDMA on the bundled rdma_rxe, over loopback in one guest: the bundled driver on eth0,
# the kernel's nfsd exporting a tmpfs and listening for RDMA on port 20049 (svcrdma), the kernel's
# NFS client mounting it with proto=rdma (xprtrdma: fast-register MRs for every READ/WRITE chunk),
# 32 MiB of random bytes written and read back with O_DIRECT and compared with what the server's
# file holds, the traffic counted on rxe0, unmount, every module unloaded, the kernel log clean.
#   tests/run-all tests/guest/driver_nfsrdma.bats
# The same over the kernel's own rdma_rxe, as a reference (the times it prints):
#   RXE_ULP_DRIVER=stock tests/vm/vm-run --env RXE_ULP_DRIVER -- bats tests/guest/driver_nfsrdma.bats
# bench/ulp-vs-stock measures both drivers side by side.

bats_require_minimum_version 1.5.0
load lib
load ulp

EXPORT=$ULP_NFS_EXPORT
MNT=$ULP_NFS_MNT
PORT=$ULP_NFS_PORT
MIB=32

setup_file() {
	require_guest
	local m
	for m in nfsd nfsv4 rpcrdma; do
		modinfo "$m" >/dev/null 2>&1 || skip "kernel $(uname -r) has no $m module"
	done
	command -v rpc.nfsd >/dev/null && command -v mount.nfs >/dev/null ||
		{ echo "nfs-kernel-server is not installed: run scripts/setup-deps" >&2; return 1; }
	dmesg -C
}

teardown_file() {
	umount -f "$MNT" 2>/dev/null || true
	rpc.nfsd 0 2>/dev/null || true
	exportfs -ua 2>/dev/null || true
	pkill -x rpc.mountd 2>/dev/null || true
	umount /proc/fs/nfsd "$EXPORT" 2>/dev/null || true
	modprobe -r nfsv4 nfsd rpcrdma 2>/dev/null || true
	rxe0_down
}

# sent: rxe0's sent_pkts counter (the bundled and the stock driver both count it).
sent() {
	rdma statistic show link rxe0/1 | tr ' ' '\n' | awk 'p { print; exit } $0 == "sent_pkts" { p = 1 }'
}

@test "bundled rxe0 on eth0; nfsd exports a tmpfs and listens for RDMA on port $PORT" {
	[ "${RXE_ULP_DRIVER:-bundled}" = bundled ] || echo "# the kernel's own rdma_rxe (reference run)" >&3
	ulp_driver
	nfsrdma_export $((MIB * 2))
	run cat /proc/fs/nfsd/portlist
	echo "$output"
	grep -qx "rdma $PORT" <<<"$output"
}

@test "mount -t nfs -o proto=rdma of the guest's own address (xprtrdma on fast-register MRs)" {
	nfsrdma_mount
	run grep " $MNT " /proc/mounts
	echo "$output"
	[[ "$output" == *proto=rdma* ]]
	grep -q 'xprt:	rdma' "/proc/self/mountstats"
	run dmesg
	! grep -qi 'rpcrdma.*\(not supported\|no .*registration\)' <<<"$output"
}

@test "$MIB MiB of random bytes written over NFS/RDMA are on the server's file and read back identical" {
	local p="$BATS_FILE_TMPDIR/pattern" start before after
	head -c "${MIB}M" /dev/urandom > "$p"
	before=$(sent)
	start=$(date +%s.%N)
	timeout 600 dd if="$p" of="$MNT/data" bs=1M oflag=direct conv=fsync status=none
	echo "# write: $MIB MiB in $(secs "$start") s (TCG guest, loopback)" >&3
	cmp "$p" "$EXPORT/data"
	start=$(date +%s.%N)
	timeout 600 dd if="$MNT/data" of="$BATS_FILE_TMPDIR/back" bs=1M iflag=direct status=none
	echo "# read: $MIB MiB in $(secs "$start") s" >&3
	cmp "$p" "$BATS_FILE_TMPDIR/back"
	after=$(sent)
	# Both directions moved through rxe0, not a TCP fallback: 64 MiB in packets of at most
	# 4096 bytes (the largest RoCE path MTU) is at least 16384 packets.
	echo "# rxe0 sent_pkts: $before -> $after" >&3
	[ $((after - before)) -ge $((MIB * 2 * 1024 * 1024 / 4096)) ]
}

@test "umount, nfsd stops, then nfsv4, nfsd, rpcrdma and rdma_rxe unload" {
	nfsrdma_stop
	timeout 120 modprobe -r nfsv4 nfsd
	timeout 120 rdma link del rxe0
	timeout 120 modprobe -r rpcrdma
	timeout 120 rmmod rdma_rxe
	! grep -qE '^(nfsd|rpcrdma|rdma_rxe) ' /proc/modules
}

@test "the kernel log has no WARNING, BUG, Oops, refcount, lockdep or hung task message" {
	kernel_log_clean
}
