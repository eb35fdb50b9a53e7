# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the guest test files (load with `load lib` from tests/guest/*.bats).

# The checkout the tests run from, and the rxectl built in it.
TOP=$(cd "$BATS_TEST_DIRNAME/.." && while [ ! -f Makefile ] && [ "$PWD" != / ]; do cd ..; done; pwd)
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
load_bundled_driver() {
	local ko="$TOP/driver/rdma_rxe.ko"
	[ -f "$ko" ] || { echo "driver/rdma_rxe.ko is not built: run make driver" >&2; return 1; }
	[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$(uname -r)" ] ||
		{ echo "driver/rdma_rxe.ko is built for another kernel than $(uname -r)" >&2; return 1; }
	! grep -q '^rdma_rxe ' /proc/modules || rmmod rdma_rxe
	modprobe ib_uverbs
	modprobe udp_tunnel
	insmod "$ko"
}
