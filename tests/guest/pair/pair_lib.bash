# SPDX-License-Identifier: GPL-2.0
# Helpers of the pair files (tests/guest/pair/, tests/guest/systemd/pair/: `load pair_lib` or
# `load ../../pair/pair_lib`; `. tests/guest/pair/pair_lib.bash` from a guest script): the two
# guests' barriers, the failed-test signal, the interop pairs' drivers and the client/server runs.
# It loads the guest test library (tests/guest/lib.bash) first.

. "$(dirname "${BASH_SOURCE[0]}")/../lib.bash"

# barrier NAME (pair guests): wait, up to 10 minutes (TCG guests on a busy host are slow), until
# both guests reached NAME.
barrier() {
	touch "$VM_SHARED/$1-$VM_ROLE"
	for _ in $(seq 1200); do
		[ -e "$VM_SHARED/$1-a" ] && [ -e "$VM_SHARED/$1-b" ] && return 0
		if [ -e "$VM_SHARED/failed" ]; then	# pair_teardown: no use waiting
			echo "barrier $1: the other guest failed a test ($(cat "$VM_SHARED/failed"))" >&2
			return 1
		fi
		sleep 0.5
	done
	echo "barrier $1: the other guest never came" >&2
	return 1
}

# pair_teardown: a pair file's teardown(): when this guest's test failed, the other guest's
# barriers stop waiting for it (they fail at once instead of after 10 minutes).
pair_teardown() {
	[ -z "${BATS_TEST_COMPLETED:-}" ] || return 0
	echo "$VM_ROLE: $BATS_TEST_DESCRIPTION" >> "$VM_SHARED/failed"
	# What the failed test left running in the background (a pingpong it would have stopped
	# after a barrier) keeps the device's user context open: teardown_file's `rdma link del`
	# then waits for it in the kernel (D state in ib_uverbs_remove_one) until the guest's
	# timeout. Stop the test's children (its shell is this one).
	pkill -P "$BASHPID" 2>/dev/null || true
}

# (pair guests) The interop pairs' driver of this guest, for rxe0_up: the bundled rdma_rxe on
# guest a, the kernel's own on guest b.
interop_driver() {
	if [ "$VM_ROLE" = a ]; then echo bundled; else echo stock; fi
}

# between NAME SERVER_ROLE PROGRAM ARGS...: (both guests of a pair) PROGRAM serves on
# SERVER_ROLE's guest and the other guest runs it as client to the server's address (PEER_ADDR,
# default VM_PEER_IP); both must exit 0. Each side prints the tail of its output (all of it when it
# failed). A run in which
# perftest on either side could not calibrate its clock runs again on both (at most three times).
between() {
	local name=$1 server=$2 try rc
	shift 2
	for try in 1 2 3; do
		rc=0
		between_once "$name-$try" "$server" "$@" || rc=$?	# not bare: errexit
		perftest_uncalibrated "$output" && touch "$VM_SHARED/$name-$try-uncalibrated"
		barrier "$name-$try-checked"
		compgen -G "$VM_SHARED/$name-$try-uncalibrated" > /dev/null || break
		echo "# perftest could not calibrate its clock (run $try), again" >&3
	done
	return "$rc"
}

between_once() {
	local name=$1 server=$2 rc
	shift 2
	barrier "$name-start"
	if [ "$VM_ROLE" = "$server" ]; then
		touch "$VM_SHARED/$name-listening"
		run timeout 180 "$@"
	else
		while [ ! -e "$VM_SHARED/$name-listening" ]; do sleep 0.5; done
		sleep 3
		run timeout 180 "$@" "${PEER_ADDR:-$VM_PEER_IP}"
	fi
	rc=$status
	if [ "$rc" = 0 ]; then echo "$output" | tail -3; else echo "$output"; fi	# all of a failure
	barrier "$name-done"
	return "$rc"
}
