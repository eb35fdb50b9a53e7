#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Kernel storage over RDMA between the two guests of a pair (the ULPs of tests/guest/ulp.bash).
# NVMe over Fabrics: guest a is the target (nvmet-rdma exporting a memory-backed null_blk on its
# address), guest b the initiator (nvme connect -t rdma to a over the wire). Three driver
# pairings, each: connect, random bytes (BB_MIB MiB on the bundled pair, MIB on the mixed ones)
# written and read back identical and found on a's device, disconnect, unload:
#   bundled (a) <-> bundled (b)   the bundled driver's own host pair (Debian's cloud kernels)
#   stock (a)   <-> bundled (b)   and bundled (a) <-> stock (b): the bundled driver against the
#                                 kernel's rdma_rxe (skipped on kernels without it)
# On the bundled pair, the wire is cut (netem 100% loss on both guests) for 4 s while b reads:
# the read resumes and its data are right, or ends with an I/O error, never hangs; no task is
# blocked in the kernel.
# NFS over RDMA: a's nfsd exports a tmpfs to b and listens for RDMA (svcrdma, port 20049); b
# mounts it with proto=rdma (xprtrdma), writes NFS_MIB MiB, a finds them in its file, b reads them
# back; b unmounts, a stops nfsd, both unload: stock <-> bundled both ways (bundled <-> bundled:
# systemd/pair/driver_nfs_units.bats, with Debian's units). The pair's guests are
# plain ones: nfsd, mountd and exportfs need no systemd (NFSv4 only, as driver_nfsrdma.bats).
# The times printed (TCG guests) are not a benchmark: bench/ulp-vs-stock is.
#   tests/run-all tests/guest/pair/driver_ulp_pair.bats

bats_require_minimum_version 1.5.0
load pair_lib
load ../ulp

# The bundled pair moves BB_MIB MiB each way (~9 s each over the bed's wire since vm-run raised
# the guests' socket buffers; before, lost bursts made 64 MiB take 288 s). The mixed pairings move
# MIB MiB (make check's time), and each read of the wire-cut test is MIB MiB.
BB_MIB=64
MIB=8
NFS_MIB=4

setup_file() {
	[ -n "${VM_ROLE:-}" ] || skip "not in a pair of test bed guests"
	local m
	for m in nvmet nvmet-rdma nvme-rdma null_blk nfsd nfsv4 rpcrdma; do
		modinfo "$m" >/dev/null 2>&1 || skip "kernel $(uname -r) has no $m module"
	done
	command -v nvme >/dev/null ||
		{ echo "nvme-cli is not installed: run scripts/setup-deps" >&2; return 1; }
	command -v rpc.nfsd >/dev/null && command -v mount.nfs >/dev/null ||
		{ echo "nfs-kernel-server is not installed: run scripts/setup-deps" >&2; return 1; }
	export ULP_TARGET_IP=$VM_PEER_IP	# b's nvme connect goes to a
	dmesg -C
}

teardown() {
	pair_teardown	# a failure here fails the other guest's barriers at once, not in 10 min
}

teardown_file() {
	tc qdisc del dev eth0 root 2>/dev/null || true
	nvme disconnect -n "$ULP_NQN" >/dev/null 2>&1 || true
	nvmet_unexport >/dev/null 2>&1 || true
	modprobe -r nvme-rdma 2>/dev/null || true
	umount -f "$ULP_NFS_MNT" 2>/dev/null || true
	rpc.nfsd 0 2>/dev/null || true
	exportfs -ua 2>/dev/null || true
	pkill -x rpc.mountd 2>/dev/null || true
	umount /proc/fs/nfsd "$ULP_NFS_EXPORT" 2>/dev/null || true
	modprobe -r nfsv4 nfsd 2>/dev/null || true
	rdma link del rxe0 2>/dev/null || true
	modprobe -r rpcrdma 2>/dev/null || true
	rmmod rdma_rxe 2>/dev/null || true
}

has_stock() {
	[ -n "$(modinfo -n rdma_rxe 2>/dev/null)" ] &&
		[[ "$(modinfo -F version rdma_rxe 2>/dev/null)" != rxectl-bundled-* ]]
}

# pairing NAME DRIVER_A DRIVER_B: both guests load their driver (bundled|stock) and put rxe0 on
# eth0; a exports the namespace, b connects to it over the wire.
pairing() {
	local name=$1 mine
	[ "$VM_ROLE" = a ] && mine=$2 || mine=$3
	barrier "$name-begin"
	RXE_ULP_DRIVER=$mine ulp_driver
	echo "# $name: guest $VM_ROLE runs $mine rdma_rxe ($(cat /sys/module/rdma_rxe/version 2>/dev/null || uname -r))" >&3
	if [ "$VM_ROLE" = a ]; then
		nvmet_export
		touch "$VM_SHARED/$name-exported"
	else
		for _ in $(seq 600); do [ -e "$VM_SHARED/$name-exported" ] && break; sleep 0.5; done
		run -0 nvme_rdma_connect
		echo "$output"
		nvme_disk
		dmesg | grep -q "new ctrl: NQN \"$ULP_NQN\", addr $VM_PEER_IP:4420"
	fi
	barrier "$name-connected"
}

# transfer NAME [MIB]: b writes MIB (default $MIB) MiB of random bytes through the fabric and
# reads them back; a finds them on its null_blk.
transfer() {
	local name=$1 mib=${2:-$MIB} p="$BATS_FILE_TMPDIR/pattern"
	if [ "$VM_ROLE" = b ]; then
		nvme_roundtrip "$p" "$mib" "$name: "
		sha256sum < "$p" > "$VM_SHARED/$name-sum"
	fi
	barrier "$name-written"
	if [ "$VM_ROLE" = a ]; then	# on the target's device, not only in a cache on b's side
		[ "$(dd if=/dev/nullb0 bs=1M count="$mib" iflag=direct status=none | sha256sum)" = \
			"$(cat "$VM_SHARED/$name-sum")" ]
	fi
}

# unpair NAME: b disconnects, a unexports; both unload their driver.
unpair() {
	local name=$1
	if [ "$VM_ROLE" = b ]; then
		run -0 timeout 120 nvme disconnect -n "$ULP_NQN"
		[[ "$output" == *"disconnected 1 controller"* ]]
		! nvme_disk
		timeout 120 modprobe -r nvme-rdma
	fi
	barrier "$name-disconnected"
	[ "$VM_ROLE" = b ] || nvmet_unexport
	timeout 60 rdma link del rxe0
	timeout 60 rmmod rdma_rxe
	barrier "$name-end"
}

@test "bundled <-> bundled: b connects to a's namespace over the wire (nvme-rdma on fast-register MRs)" {
	pairing bb bundled bundled
}

@test "bundled <-> bundled: $BB_MIB MiB written and read back identical, and on a's device" {
	transfer bb "$BB_MIB"
}

# reader PATTERN BACK STOP: reads the first MIB MiB of the namespace into BACK over and over
# until STOP exists, each read checked against PATTERN; a read that fails (the controller
# resetting) is clean, wrong data is not. Prints "good N failed M"; returns 3 on wrong data, 124
# when a read hung 300 s.
reader() {
	local p=$1 back=$2 stop=$3 good=0 failed=0 rc d
	while [ ! -e "$stop" ]; do
		if ! d=$(nvme_disk); then	# reconnecting: the namespace comes back
			sleep 0.2
			continue
		fi
		rc=0
		timeout 300 dd if="$d" of="$back" bs=256k count=$((MIB * 4)) iflag=direct \
			status=none 2>/dev/null || rc=$?
		if [ "$rc" = 124 ]; then
			echo "good $good failed $failed hung"
			return 124
		elif [ "$rc" != 0 ]; then
			failed=$((failed + 1))
			sleep 0.2
		elif cmp -s -n $((MIB << 20)) "$p" "$back"; then
			good=$((good + 1))
		else
			echo "good $good failed $failed wrong-data"
			return 3
		fi
	done
	echo "good $good failed $failed"
}

@test "bundled <-> bundled: the wire cut for 4 s under reads: they resume with the right data or fail cleanly, nothing hangs" {
	local disk pid rc start out p="$BATS_FILE_TMPDIR/pattern" back="$BATS_FILE_TMPDIR/back"
	local stop="$BATS_FILE_TMPDIR/stop-reading"
	if [ "$VM_ROLE" = b ]; then
		rm -f "$stop"
		# reads back to back until the wire has come back: one is in flight when it goes
		reader "$p" "$back" "$stop" > "$BATS_FILE_TMPDIR/reader" &
		pid=$!
		sleep 1
		touch "$VM_SHARED/cut-reading"
	else
		for _ in $(seq 600); do [ -e "$VM_SHARED/cut-reading" ] && break; sleep 0.5; done
	fi
	barrier cut
	start=$(date +%s.%N)
	tc qdisc add dev eth0 root netem loss 100%
	if [ "$VM_ROLE" = b ] && ! kill -0 "$pid"; then
		tc qdisc del dev eth0 root
		echo "the reader had ended before the wire was cut: $(cat "$BATS_FILE_TMPDIR/reader")" >&2
		return 1
	fi
	sleep 4
	tc qdisc del dev eth0 root
	barrier restored
	if [ "$VM_ROLE" = b ]; then
		sleep 2	# a read after the wire is back, too
		touch "$stop"
		rc=0
		wait "$pid" || rc=$?
		out=$(cat "$BATS_FILE_TMPDIR/reader")
		echo "# reads across the cut: $out; the reader stopped $(secs "$start") s after the cut began, exit $rc" >&3
		[ "$rc" = 0 ]	# 124: a read hung 300 s; 3: a read returned wrong data
		# whatever happened during the cut, the namespace reads right now
		for _ in $(seq 300); do nvme_disk >/dev/null && break; sleep 0.2; done
		timeout 120 dd if="$(nvme_disk)" of="$back" bs=1M count="$MIB" iflag=direct status=none
		cmp -n $((MIB << 20)) "$p" "$back"
		rm -f "$back"
	fi
	barrier cut-checked
	kernel_log_clean
}

@test "bundled <-> bundled: nvme disconnect, unexport, and every module unloads" {
	unpair bb
	! grep -qE '^(nvme_rdma|nvmet_rdma|nvmet|null_blk|rdma_rxe) ' /proc/modules
}

@test "stock (a) <-> bundled (b): connect, 8 MiB both ways identical, disconnect" {
	has_stock || skip "kernel $(uname -r) has no rdma_rxe of its own"
	pairing sb stock bundled
	transfer sb
	unpair sb
}

@test "bundled (a) <-> stock (b): connect, 8 MiB both ways identical, disconnect" {
	has_stock || skip "kernel $(uname -r) has no rdma_rxe of its own"
	pairing bs bundled stock
	transfer bs
	unpair bs
}

# nfs_pairing NAME DRIVER_A DRIVER_B: both guests load their driver (bundled|stock) and put rxe0
# on eth0; a's nfsd exports a tmpfs to b over RDMA, b mounts it, writes NFS_MIB MiB of random
# bytes, a finds them in its file, b reads them back identical; b unmounts, a stops nfsd, both
# unload every module they used.
nfs_pairing() {
	local name=$1 mine p="$BATS_FILE_TMPDIR/nfs-pattern" start
	[ "$VM_ROLE" = a ] && mine=$2 || mine=$3
	barrier "$name-begin"
	RXE_ULP_DRIVER=$mine ulp_driver
	echo "# $name: guest $VM_ROLE runs $mine rdma_rxe ($(cat /sys/module/rdma_rxe/version 2>/dev/null || uname -r))" >&3
	if [ "$VM_ROLE" = a ]; then
		ULP_NFS_CLIENT=$VM_PEER_IP nfsrdma_export $((NFS_MIB * 2))
		grep -qx "rdma $ULP_NFS_PORT" /proc/fs/nfsd/portlist
		touch "$VM_SHARED/$name-exported"
	else
		for _ in $(seq 600); do [ -e "$VM_SHARED/$name-exported" ] && break; sleep 0.5; done
		modprobe rpcrdma
		mkdir -p "$ULP_NFS_MNT"
		nfsrdma_mount
		grep " $ULP_NFS_MNT " /proc/mounts | grep -q "proto=rdma.*addr=$VM_PEER_IP"
		head -c "${NFS_MIB}M" /dev/urandom > "$p"
		start=$(date +%s.%N)
		timeout 300 dd if="$p" of="$ULP_NFS_MNT/data" bs=1M oflag=direct conv=fsync status=none
		echo "# $name: write $NFS_MIB MiB in $(secs "$start") s" >&3
		sha256sum < "$p" > "$VM_SHARED/$name-sum"
	fi
	barrier "$name-written"
	if [ "$VM_ROLE" = a ]; then	# in the server's file, not only in b's page cache
		[ "$(sha256sum < "$ULP_NFS_EXPORT/data")" = "$(cat "$VM_SHARED/$name-sum")" ]
	else
		start=$(date +%s.%N)
		timeout 300 dd if="$ULP_NFS_MNT/data" of="$p.back" bs=1M iflag=direct status=none
		echo "# $name: read $NFS_MIB MiB in $(secs "$start") s" >&3
		cmp "$p" "$p.back"
		timeout 120 umount "$ULP_NFS_MNT"
		timeout 120 modprobe -r nfsv4
	fi
	barrier "$name-unmounted"
	if [ "$VM_ROLE" = a ]; then
		nfsrdma_stop
		timeout 120 modprobe -r nfsd
	fi
	timeout 60 rdma link del rxe0
	timeout 120 modprobe -r rpcrdma
	timeout 60 rmmod rdma_rxe
	! grep -qE '^(nfsd|nfsv4|rpcrdma|rdma_rxe) ' /proc/modules
	barrier "$name-end"
}

# bundled <-> bundled NFS/RDMA over the wire: systemd/pair/driver_nfs_units.bats (as an operator
# runs it, nfs-server.service and an fstab mount).
@test "NFS/RDMA stock (a, nfsd) <-> bundled (b, client): b mounts a's export over the wire, $NFS_MIB MiB written, in a's file, read back identical" {
	has_stock || skip "kernel $(uname -r) has no rdma_rxe of its own"
	nfs_pairing nfs-sb stock bundled
}

@test "NFS/RDMA bundled (a, nfsd) <-> stock (b, client): the same" {
	has_stock || skip "kernel $(uname -r) has no rdma_rxe of its own"
	nfs_pairing nfs-bs bundled stock
}

@test "the kernel log has no WARNING, BUG, Oops, refcount, lockdep or hung task message" {
	kernel_log_clean
}
