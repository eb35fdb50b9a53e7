#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# What only a kernel ULP sees of the bundled rdma_rxe, through tests/driver/ktest/rxe_ktest.ko
# (built here against the running kernel's headers, loaded only in the test bed): a DMA MR with
# remote access is refused at creation while the local one works; the QP event and CQ completion
# handlers run without qp->lock (they call ib_query_qp/ib_modify_qp/ib_poll_cq from inside);
# a consumer's own move to ERR raises no QP_FATAL; the sgid_attr a QP and an AH store is held
# while stored (the test deletes the address behind the GID, then everything is used and
# destroyed, and the device removed: no refcount warning, no GID entry leak); fast-register MRs
# (ib_alloc_mr, ib_map_mr_sg, IB_WR_REG_MR, IB_WR_LOCAL_INV, key generations, SEND with
# Invalidate and its refusals: rxe_ktest_frmr.c); UC/UD opcodes refused at post time and
# LAST_WQE_REACHED on a kernel SRQ QP, resizing a kernel SRQ, the QP states that refuse posts (rxe_ktest_verbs.c). The
# stock rdma_rxe runs the same module last, as a reference (its results are printed, not judged,
# but for post-state, where the bundled driver claims stock's rules).
#   tests/run-all tests/guest/driver_ktest.bats

bats_require_minimum_version 1.5.0
load lib

HELD_IP=192.0.2.77
BAD='WARNING|BUG|Oops|refcount|lockdep|circular locking|general protection|ref leak|hung_task|blocked for more than'

setup_file() {
	require_guest
	local kdir="/lib/modules/$(uname -r)/build" d="$BATS_FILE_TMPDIR/ktest"
	[ -d "$kdir" ] || kdir="/usr/src/linux-headers-$(uname -r)"
	mkdir -p "$d"
	# The host built it for this kernel (tests/run-all: make -C tests/driver/ktest bed) from the
	# sources as they are: take it. Else (another row, a changed source) build it here.
	local pre="$TOP/tests/driver/ktest/build/$(uname -r)/rxe_ktest.ko"
	if [ -f "$pre" ] && [ -z "$(find "$TOP/tests/driver/ktest" -maxdepth 1 -name '*.[ch]' -newer "$pre")" ]; then
		cp "$pre" "$d/"
		echo "# rxe_ktest.ko: the host's build for $(uname -r)" >&3
		return 0
	fi
	cp "$TOP"/tests/driver/ktest/{Kbuild,*.c,*.h} "$d/"
	make -C "$kdir" M="$d" modules > "$d/build.log" 2>&1 || { cat "$d/build.log" >&2; return 1; }
}

teardown_file() {
	rmmod rxe_ktest 2>/dev/null || true
	ip addr del "$HELD_IP/24" dev eth0 2>/dev/null || true
	rdma link del rxe0 2>/dev/null || true
	rmmod rdma_rxe 2>/dev/null || true
}

# gid_of IP: the GID index of IP's RoCE v2 GID on rxe0.
gid_of() {
	local want i
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${1//./ })
	for i in $(seq 0 15); do
		[ "$(cat "/sys/class/infiniband/rxe0/ports/1/gids/$i" 2>/dev/null)" = "$want" ] &&
			{ echo "$i"; return; }
	done
	return 1
}

# ktest_load: rxe0 on eth0 with a second address, then rxe_ktest on it; KTEST_RC, KTEST_LOG.
ktest_load() {
	local g h i
	rdma link add rxe0 type rxe netdev eth0
	ip addr add "$HELD_IP/24" dev eth0
	for i in $(seq 50); do h=$(gid_of "$HELD_IP") && break; sleep 0.2; done
	[ -n "$h" ] || { echo "no GID for $HELD_IP on rxe0"; return 1; }
	g=$(gid_index)
	dmesg -C
	KTEST_RC=0
	timeout 120 insmod "$BATS_FILE_TMPDIR/ktest/rxe_ktest.ko" dev=rxe0 gid="$g" held_gid="$h" ||
		KTEST_RC=$?
	HELD_GID=$h
	KTEST_LOG=$(dmesg | grep 'rxe_ktest')
	echo "insmod: $KTEST_RC"
	echo "$KTEST_LOG"
}

# ktest_release: delete the held address (its GID goes), unload rxe_ktest (uses and destroys
# what holds the GID), remove rxe0 (the GID table is released: a leaked entry warns).
ktest_release() {
	local i
	ip addr del "$HELD_IP/24" dev eth0
	for i in $(seq 50); do
		[ "$(cat "/sys/class/infiniband/rxe0/ports/1/gids/$HELD_GID" 2>/dev/null)" != \
			"$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${HELD_IP//./ })" ] && break
		sleep 0.2
	done
	timeout 120 rmmod rxe_ktest
	timeout 120 rdma link del rxe0
	sleep 1
	KTEST_LOG=$(dmesg | grep 'rxe_ktest')
	echo "$KTEST_LOG"
}

@test "bundled: rxe_ktest loads and every case passes" {
	load_bundled_driver
	ktest_load
	echo "$KTEST_LOG" > "$BATS_FILE_TMPDIR/bundled.log"
	[ "$KTEST_RC" = 0 ]
	! grep -q 'rxe_ktest: FAIL' <<<"$KTEST_LOG"
}

@test "bundled: a DMA MR with remote access is refused at creation, the local DMA MR carries a SEND" {
	run grep -c 'rxe_ktest: ok dma-remote-refused' "$BATS_FILE_TMPDIR/bundled.log"
	[ "$output" = 2 ]
	grep 'rxe_ktest: ok dma-local-mr: .*data matches' "$BATS_FILE_TMPDIR/bundled.log"
}

@test "bundled: QP event and CQ completion handlers may query and modify the QP from inside" {
	grep 'rxe_ktest: ok qp-event-handler: QP_FATAL 1/1, handler in process context' \
		"$BATS_FILE_TMPDIR/bundled.log"
	grep 'rxe_ktest: ok cq-comp-handler: .*handler in process context' "$BATS_FILE_TMPDIR/bundled.log"
}

@test "bundled: the consumer's own move to ERR flushes and raises no QP_FATAL" {
	grep 'rxe_ktest: ok app-err-flush: .*IB_EVENT_QP_FATAL 0' "$BATS_FILE_TMPDIR/bundled.log"
}

@test "bundled: a fast-register MR is advertised, registered, and carries RDMA WRITE and READ of every byte" {
	grep 'rxe_ktest: ok frmr-caps: IB_DEVICE_MEM_MGT_EXTENSIONS set' "$BATS_FILE_TMPDIR/bundled.log"
	grep 'rxe_ktest: ok frmr-write-read: .*WRITE status 0, every byte landed; READ status 0, every byte read back' \
		"$BATS_FILE_TMPDIR/bundled.log"
}

@test "bundled: after IB_WR_LOCAL_INV the old rkey is a remote access error" {
	grep 'rxe_ktest: ok frmr-local-inv' "$BATS_FILE_TMPDIR/bundled.log"
}

@test "bundled: the next registration's key differs in the low 8 bits; only the new key works" {
	grep 'rxe_ktest: ok frmr-key-generation' "$BATS_FILE_TMPDIR/bundled.log"
}

@test "bundled: SEND with Invalidate invalidates the receiver's MR and says so with the rkey" {
	grep 'rxe_ktest: ok frmr-send-inv: .*IB_WC_WITH_INVALIDATE set' "$BATS_FILE_TMPDIR/bundled.log"
}

@test "bundled: SEND with Invalidate of a DMA MR or another PD's MR is a remote access error" {
	grep 'rxe_ktest: ok frmr-send-inv-dma-key: .*IB_WC_WITH_INVALIDATE not set' \
		"$BATS_FILE_TMPDIR/bundled.log"
	run grep -c 'rxe_ktest: ok frmr-send-inv-foreign-pd' "$BATS_FILE_TMPDIR/bundled.log"
	[ "$output" = 2 ]
}

@test "bundled: a kernel UC QP refuses RDMA READ and atomics at post time, a UD QP RDMA WRITE" {
	grep 'rxe_ktest: ok post-refused' "$BATS_FILE_TMPDIR/bundled.log"
}

@test "bundled, as stock: a kernel QP refuses a send in RESET and INIT and a receive in RESET (EINVAL), again when moved back to RESET" {
	grep 'rxe_ktest: ok post-state' "$BATS_FILE_TMPDIR/bundled.log"
}

@test "bundled: a kernel QP on an SRQ moved to ERR raises LAST_WQE_REACHED once, in process context" {
	grep 'rxe_ktest: ok last-wqe-kernel: .*handler in process context' "$BATS_FILE_TMPDIR/bundled.log"
}

@test "bundled: ib_modify_srq grows a full kernel SRQ keeping its receives, refuses fewer slots than wait" {
	grep 'rxe_ktest: ok srq-resize-kernel' "$BATS_FILE_TMPDIR/bundled.log"
}

@test "bundled: a QP and an AH keep the sgid_attr of a GID whose address goes away" {
	grep 'rxe_ktest: ok sgid-setup' "$BATS_FILE_TMPDIR/bundled.log"
	ktest_release
	grep 'rxe_ktest: ok sgid-teardown: GID [0-9]* is gone' <<<"$KTEST_LOG"
	grep 'rxe_ktest: unloaded' <<<"$KTEST_LOG"
	rmmod rdma_rxe
	run dmesg
	! grep -E "$BAD" <<<"$output"
}

@test "stock rdma_rxe (reference only): rxe_ktest runs to its end; its results are printed" {
	modinfo rdma_rxe >/dev/null 2>&1 || skip "this kernel has no stock rdma_rxe"
	load_driver stock
	ktest_load
	if [ "$KTEST_RC" = 0 ]; then
		ktest_release
	else
		ip addr del "$HELD_IP/24" dev eth0
		timeout 120 rdma link del rxe0 || true
	fi
	sed 's/^\[[^]]*\] /# stock: /' <<<"$KTEST_LOG" >&3
	run dmesg
	grep -E "$BAD" <<<"$output" | sed 's/^/# stock kernel log: /' >&3 || true
	# It ran to its end: every case reported (a deadlock would stop it).
	grep -q 'rxe_ktest: \(ok\|FAIL\) app-err-flush' <<<"$KTEST_LOG"
	grep -q 'rxe_ktest: \(ok\|FAIL\) frmr-send-inv-foreign-pd' <<<"$KTEST_LOG"
	# The bundled driver claims stock's post-time state rules: stock must pass that case too.
	grep -q 'rxe_ktest: ok post-state' <<<"$KTEST_LOG"
}
