#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# DKMS for real in a guest of the row the bed boots (RXE_VM_KERNEL): dkms add/build/install of the
# driver source against this kernel's headers, the module loads from updates/, survives depmod,
# and `dkms remove` goes back to the kernel's own module (generic) or to none (cloud).

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
	export KVER=$(uname -r)
	# The default kernel's headers are installed on the host; the other rows' are extracted into
	# the test bed's cache (tests/vm/kernel-row).
	export HDR=/usr/src/linux-headers-$KVER
	[ -d "$HDR" ] || HDR=/var/cache/rxectl-vm/headers/$KVER/usr/src/linux-headers-$KVER
	[ -d "$HDR" ] || skip "no headers for $KVER in the guest (run tests/vm/kernel-row fetch on the host)"
	# DKMS builds with the compiler that built the kernel (its CONFIG_CC_VERSION_TEXT). A row that
	# tests/vm/rows builds in an mmdebstrap root (newest: a newer gcc than the host's) cannot be
	# built by DKMS in a guest on the host's root, whose make would stop at "gcc-N: not found":
	# there the guest's root must be that build root (vm-run's RXE_VM_GUEST_ROOT=build).
	CC=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\).*/\1/p' "$HDR/.config")
	command -v "${CC:-gcc}" >/dev/null ||
		skip "$KVER was built with $CC, which this guest's root does not have (run it with RXE_VM_GUEST_ROOT=build)"
	# the version dkms-install gives the sources (dkms.conf holds #MODULE_VERSION#)
	export VER=$(make -s -C "$TOP/driver" version)
	STOCK=$(find "/lib/modules/$KVER/kernel" -name 'rdma_rxe.ko*' | head -n1)
	export STOCK
}

@test "dkms add, build and install the driver against this kernel's headers" {
	run make -C "$TOP/driver" dkms-install
	[ "$status" = 0 ] || { echo "$output"; false; }
	run timeout 1200 dkms build "rdma_rxe/$VER" -k "$KVER" --kernelsourcedir "$HDR"
	[ "$status" = 0 ] || { echo "$output"; cat /var/lib/dkms/rdma_rxe/"$VER"/build/make.log; false; }
	run dkms install "rdma_rxe/$VER" -k "$KVER" --kernelsourcedir "$HDR"
	[ "$status" = 0 ] || { echo "$output"; false; }
	[[ "$(dkms status rdma_rxe -k "$KVER")" == *installed* ]]
}

@test "the installed module is the one in updates/ and loads" {
	[[ "$(modinfo -n rdma_rxe)" == /lib/modules/$KVER/updates/* || "$(modinfo -n rdma_rxe)" == /usr/lib/modules/$KVER/updates/* ]]
	modprobe rdma_rxe
	[[ "$(cat /sys/module/rdma_rxe/version)" == "rxectl-bundled-$VER" ]]
	rdma link add rxe0 type rxe netdev eth0
	[ -n "$(gid_index)" ]
	rdma link del rxe0
	rmmod rdma_rxe
}

@test "depmod -a keeps updates/ first" {
	depmod -a "$KVER"
	[[ "$(modinfo -n rdma_rxe)" == */updates/* ]]
	modprobe rdma_rxe
	[[ "$(cat /sys/module/rdma_rxe/version)" == rxectl-bundled-* ]]
	rmmod rdma_rxe
}

@test "dkms remove goes back to the kernel's own rdma_rxe, or to none where it has none" {
	dkms remove "rdma_rxe/$VER" --all
	depmod -a "$KVER"
	if [ -n "$STOCK" ]; then
		[[ "$(modinfo -n rdma_rxe)" == */kernel/drivers/infiniband/sw/rxe/* ]]
		modprobe rdma_rxe
		[[ "$(cat /sys/module/rdma_rxe/version 2>/dev/null)" != rxectl-bundled-* ]]
		rmmod rdma_rxe
	else
		run ! modinfo -n rdma_rxe
	fi
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	kernel_log_clean
}
