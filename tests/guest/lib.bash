# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the guest test files (load with `load lib` from tests/guest/*.bats, or
# `. tests/guest/lib.bash` from a guest script such as bench/'s).

# The checkout the tests run from (two levels above this file), and the rxectl built in it.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RXECTL="$TOP/rxectl"

# For setup_file: these tests need the test bed guest (eth0 on the guest-to-guest wire).
require_guest() {
	[ -d /sys/class/net/eth0 ] || skip "not in the test bed guest (no eth0)"
}

# For setup: every test gets its own, empty configuration file.
use_empty_config() {
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR/rxe.conf"
	: > "$RXECTL_CONFIG"
}

# Load the bundled driver (driver/rdma_rxe.ko) instead of the stock rdma_rxe. run-all builds it
# before the guest tests; a missing or mismatched module fails the file rather than skipping it.
# The bundled module built for the running kernel: driver/ for the default kernel, driver/build/KVER/
# for the other kernel rows (tests/vm/kernel-row).
bundled_ko() {
	if [ -f "$TOP/driver/build/$(uname -r)/rdma_rxe.ko" ]; then
		echo "$TOP/driver/build/$(uname -r)/rdma_rxe.ko"
	else
		echo "$TOP/driver/rdma_rxe.ko"
	fi
}

load_bundled_driver() {
	local ko
	ko=$(bundled_ko)
	[ -f "$ko" ] || { echo "driver/rdma_rxe.ko is not built: run make driver" >&2; return 1; }
	[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$(uname -r)" ] ||
		{ echo "driver/rdma_rxe.ko is built for another kernel than $(uname -r)" >&2; return 1; }
	! grep -q '^rdma_rxe ' /proc/modules || rmmod rdma_rxe
	modprobe ib_uverbs
	modprobe udp_tunnel
	insmod "$ko"
}

# load_driver bundled|stock: that rdma_rxe loaded (a loaded one unloaded first, its devices with
# it), with ib_uverbs and rdma_ucm (RDMA CM users: rping, rxectl ping, the ULPs). stock is the
# kernel's own module; a caller skips on kernels without one. Fails when the module that loaded
# is not the kind asked for.
load_driver() {
	! grep -q '^rdma_rxe ' /proc/modules || rmmod rdma_rxe || return 1
	case $1 in
	bundled)
		load_bundled_driver &&
			[[ "$(cat /sys/module/rdma_rxe/version)" == rxectl-bundled-* ]] || return 1
		;;
	stock)
		modprobe ib_uverbs && modprobe rdma_rxe &&
			[[ "$(cat /sys/module/rdma_rxe/version 2>/dev/null)" != rxectl-bundled-* ]] ||
			return 1
		;;
	*)
		echo "load_driver: bundled or stock, not '$1'" >&2
		return 2
		;;
	esac
	modprobe rdma_ucm
}

# test_prog NAME [DIR]: build the driver test program tests/driver/NAME.c into DIR/NAME (default
# $BATS_FILE_TMPDIR) with tests/driver/Makefile, the one build of every test program.
test_prog() {
	make -s -C "$TOP/tests/driver" OUT="${2:-$BATS_FILE_TMPDIR}" "${2:-$BATS_FILE_TMPDIR}/$1"
}

# rxe0_up bundled|stock [NETDEV]: that rdma_rxe loaded (load_driver) and rxe0 on NETDEV (default
# eth0). rxe0_down: rxe0 deleted and rdma_rxe unloaded, whatever of it is there (for teardowns).
rxe0_up() {
	load_driver "$1" && rdma link add rxe0 type rxe netdev "${2:-eth0}"
}

rxe0_down() {
	rdma link del rxe0 2>/dev/null || true
	rmmod rdma_rxe 2>/dev/null || true
}

# kernel_log_clean: the kernel log has no line that tests/vm/kernel-log-bad names (the patterns
# `vm-run --dmesg-clean` fails a guest on); when it has, they are printed and it fails. The last
# test of every driver file.
kernel_log_clean() {
	local bad
	bad=$(dmesg | grep -E -f <(grep -v '^#' "$TOP/tests/vm/kernel-log-bad")) || return 0
	printf 'the kernel log has lines tests/vm/kernel-log-bad names:\n%s\n' "$bad"
	return 1
}

# The setup of the loopback driver files (driver_data, driver_retry, driver_counters): rxe_verify
# built into $BATS_FILE_TMPDIR, the bundled driver loaded and rxe0 on eth0; and its undo.
setup_bundled_rxe0() {
	require_guest
	test_prog rxe_verify
	rxe0_up bundled
}

teardown_bundled_rxe0() {
	rxe0_down
}

# peer_ns_up SELF PEER [ADDR...]: veth0 with SELF/24 here, its other end veth1 in the network
# namespace "peer" with PEER/24 and each further ADDR/24: where the hostile, fuzz and conformance
# files send from (rdma link add rxe1 ... netdev veth0 is theirs). peer_ns_down: rxe1, veth0,
# the namespace and rdma_rxe gone, whatever of them is there (their teardown_file).
peer_ns_up() {
	local self=$1 a
	shift
	ip netns add peer
	ip link add veth0 type veth peer name veth1 netns peer
	ip addr add "$self/24" dev veth0
	ip link set veth0 up
	for a in "$@"; do ip -n peer addr add "$a/24" dev veth1; done
	ip -n peer link set veth1 up
	ip -n peer link set lo up
}

peer_ns_down() {
	rdma link del rxe1 2>/dev/null || true
	ip link del veth0 2>/dev/null || true
	ip netns del peer 2>/dev/null || true
	rmmod rdma_rxe 2>/dev/null || true
}

# rxe0_counters [DEV]: all counters of DEV's (default rxe0) port 1 as one JSON object
# (driver_counters, driver_place); counter_delta BEFORE AFTER NAME: how much NAME moved between
# two of them.
rxe0_counters() {
	rdma -j statistic show link "${1:-rxe0}/1" | jq -c '.[0]'
}

counter_delta() {
	echo $(( $(jq -r --arg n "$3" '.[$n]' <<<"$2") - $(jq -r --arg n "$3" '.[$n]' <<<"$1") ))
}

# gid_index [DEV [ADDR]]: the GID index of the RoCE v2 GID for the IPv4 address ADDR (default
# this guest's, $VM_SELF_IP) on DEV (default rxe0). The table has 1024 slots; the address GIDs
# come first.
gid_index() {
	local dev=${1:-rxe0} addr=${2:-$VM_SELF_IP} want i
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${addr//./ })
	for i in $(seq 0 15); do
		[ "$(cat "/sys/class/infiniband/$dev/ports/1/gids/$i")" = "$want" ] && { echo "$i"; return; }
	done
	return 1
}

# perftest_uncalibrated OUTPUT...: did perftest give up for its clock? It measures the CPU clock
# against gettimeofday for every report and prints "Can't produce a report" when the samples
# disagree (r^2 < 0.9), as they do in a TCG guest on a busy host: a failure of the tool's clock,
# not of what it ran over.
perftest_uncalibrated() {
	[[ "$*" == *"Can't produce a report"* || "$*" == *"Correlation coefficient r^2"* ]]
}

# Install the bundled driver for the running kernel the way `make -C driver module-install` does
# (updates/, then depmod), in the guest's own overlay of the module tree.
install_bundled_driver() {
	local d="/lib/modules/$(uname -r)/updates"
	[ -f "$(bundled_ko)" ] || { echo "driver/rdma_rxe.ko is not built: run make driver" >&2; return 1; }
	mkdir -p "$d"
	cp "$(bundled_ko)" "$d/rdma_rxe.ko"
	depmod
}

# Make this guest's kernel look like one built without CONFIG_RDMA_RXE (Debian's cloud kernel):
# no in-tree rdma_rxe.ko, and none in modules.order; the host's files are not touched (overlay).
hide_stock_rxe() {
	local m="/lib/modules/$(uname -r)"
	! grep -q '^rdma_rxe ' /proc/modules || rmmod rdma_rxe
	rm -f "$m"/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko*
	sed -i '/\/rdma_rxe\.ko/d' "$m/modules.order"
	depmod
}

# The capabilities `rxectl status --json` should report for DEVICE, read independently from
# `ibv_devinfo -v` (device_cap_flags bits: 17 MEM_WINDOW, 21 MEM_MGT_EXTENSIONS, 23/24 MW 2A/2B).
devinfo_caps() {
	local v f
	v=$(ibv_devinfo -v -d "$1") || return 1
	_dc_val() { awk -v k="$1:" '$1 == k { print $2; exit }' <<< "$v"; }
	f=$(($(_dc_val device_cap_flags)))
	_dc_tf() { (( $1 )) && echo true || echo false; }
	jq -ncS --argjson fr "$(_dc_tf 'f >> 21 & 1')" --argjson mw "$(_dc_tf 'f >> 17 & 1')" \
		--argjson mw2 "$(_dc_tf 'f >> 23 & 3')" --argjson at "$([ "$(_dc_val atomic_cap)" != ATOMIC_NONE ] && echo true || echo false)" \
		--argjson mr "$(printf %u "$(_dc_val max_mr_size)")" --argjson qp "$(_dc_val max_qp)" \
		--argjson cq "$(_dc_val max_cq)" --argjson m "$(_dc_val max_mr)" --argjson pd "$(_dc_val max_pd)" \
		--argjson srq "$(_dc_val max_srq)" --argjson wr "$(_dc_val max_qp_wr)" --argjson sge "$(_dc_val max_sge)" \
		--argjson mc "$(_dc_val max_mcast_grp)" \
		'{fast_reg_mr: $fr, memory_windows: $mw, memory_windows_type2: $mw2, atomics: $at,
		  max_mr_size: $mr, max_qp: $qp, max_cq: $cq, max_mr: $m, max_pd: $pd, max_srq: $srq,
		  max_qp_wr: $wr, max_sge: $sge, max_mcast_grp: $mc}'
}
