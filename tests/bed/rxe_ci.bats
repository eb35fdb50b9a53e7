#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxe-ci's real runs: this file runs on the host and boots guests through rxe-ci (tests/vm/vm-run,
# so they take the bed's guest slots like any other): contrib/ci/example in one guest with the
# stock driver, a failing command with the bundled driver, the example as a pair, and --host
# inside a guest (passing, and doctor failing: exit 123). The commands are the CI recipes'
# (contrib/ci/*.yml; tests/host/rxe_ci.bats checks they match). ~110 guest-seconds under TCG.
#   tests/run-all tests/bed/rxe_ci.bats     (or: bats tests/bed/rxe_ci.bats)

bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

setup_file() {
	[ -x "$TOP/rxectl" ] || { echo "build rxectl first (make)" >&2; return 1; }
	export PATH="$TOP/cli:$PATH"
}

setup() {
	# the example project, copied: its results/ are written from inside the guests
	cp -r "$TOP/contrib/ci/example" "$BATS_TEST_TMPDIR/example"
	cd "$BATS_TEST_TMPDIR/example"
}

# The guest time vm-run reports, times the slots (a pair holds two), as a TAP comment that
# tests/vm/ci-budget measure adds up for the file's row in tests/vm/budget.md; the results
# directory vm-run keeps after a failure (on purpose here) is removed.
guest_time() { # [SLOTS]
	local t d
	t=$(sed -n 's/.*vm-run: guest time \([0-9]*\) s.*/\1/p' <<< "$output" | head -n1)
	echo "# bed slot-seconds $((${t:-0} * ${1:-1})): $BATS_TEST_DESCRIPTION" >&3
	d=$(sed -n 's|^vm-run: guest logs kept in \(/tmp/rxevm\.[A-Za-z0-9]*\)$|\1|p' <<< "$output")
	[ -z "$d" ] || rm -rf "$d"
}

@test "one guest, stock driver: the example project passes and writes its results to the host" {
	run -0 rxe-ci --timeout 300 -- ./run-tests
	echo "$output"; guest_time
	[[ "$output" == *"rxe-ci: TCG, no KVM"* || "$output" == *"rxe-ci: KVM"* ]]
	[[ "$output" == *"stock rdma_rxe): rxe_eth0 on eth0 was created and is ACTIVE"* ]]
	[[ "$output" == *"PASS: 200 RC send/recv exchanges of 4096 bytes"* ]]
	[[ "$output" != *"rxe-ci: ===="* ]]
	grep -q '^200 iters in ' results/pingpong-loopback.log
	grep -q '^200 iters in ' results/pingpong-loopback.log.server
}

@test "one guest, bundled driver: a command that exits 1 makes rxe-ci exit 1, the rxe state after its output" {
	[ -f "$TOP/driver/rdma_rxe.ko" ] || { echo "build the bundled driver first (make driver)"; false; }
	run -1 rxe-ci --driver bundled --timeout 300 -- bash -c './run-tests && cat /sys/module/rdma_rxe/version && exit 1'
	echo "$output"; guest_time
	[[ "$output" == *"bundled rdma_rxe): rxe_eth0 on eth0 was created"* ]]
	# the command's own output, then the section a CI log reader acts on, in this order
	out=$(grep -vE '^vm-run: ' <<< "$output")
	[[ "$out" == *"PASS: 200 RC"*"rxectl-bundled"*"rxe-ci: ==== the command exited with status 1; Soft-RoCE on the guest a ===="*"rxe-ci: ---- kernel log, rxe lines"*"rdma_rxe: loaded (rxectl-bundled-"*"rxe-ci: ---- rxectl status"*"rxe_eth0 on eth0: ACTIVE (LINK_UP)"*", driver bundled"*"rxe-ci: ---- rxectl stats rxe_eth0"*"sent_pkts"*"rxe-ci: ==== end of Soft-RoCE state; the command's status was 1 ===="* ]]
	# the counters are the device's: the ping-pong's 2 x 200 sends are in them
	sends=$(awk '$1 == "rdma_sends" { print $2 }' <<< "$output")
	[ "$sends" -ge 400 ]
}

@test "a pair, stock driver: the example's server in guest a, its client in b, each given the peer's address" {
	run -0 rxe-ci --pair --timeout 300 --a './run-tests server' --b './run-tests client'
	echo "$output"; guest_time 2
	[[ "$output" == *"[a] rxe-ci: guest a: RXE_DEVICE=rxe_eth0 RXE_IP=192.0.2.1 RXE_GID_INDEX=1; peer RXE_PEER_ADDR=192.0.2.2 RXE_PEER_GID_INDEX=1"* ]]
	[[ "$output" == *"[b] rxe-ci: guest b: RXE_DEVICE=rxe_eth0 RXE_IP=192.0.2.2 RXE_GID_INDEX=1; peer RXE_PEER_ADDR=192.0.2.1 RXE_PEER_GID_INDEX=1"* ]]
	[[ "$output" == *"[a] PASS: 200 RC"* ]]
	[[ "$output" == *"[b] PASS: 200 RC"* ]]
	grep -q '^200 iters in ' results/pingpong-server.log
	grep -q '^200 iters in ' results/pingpong-client.log
}

@test "--host (run on a guest as its host): passes, then exits 123 with doctor's output when doctor fails" {
	export RXE_CI_BIN="$TOP/cli/rxe-ci"
	run -0 "$TOP/tests/vm/vm-run" --share-cwd --timeout 300 --env RXE_CI_BIN -- bash -c '
		"$RXE_CI_BIN" --host --netdev eth0 -- ./run-tests; echo "host run 1: $?"
		rdma link show | grep -c rxe || true
		# a firewall that drops RoCE v2: doctor fails, the command does not run
		nft add table inet rxeci
		nft add chain inet rxeci input "{ type filter hook input priority 0; }"
		nft add rule inet rxeci input udp dport 4791 drop
		"$RXE_CI_BIN" --host --netdev eth0 -- echo should-not-run; echo "host run 2: $?"'
	echo "$output"; guest_time
	[[ "$output" == *"rxe-ci: on this host ("*"), no VM, netdev eth0"* ]]
	[[ "$output" == *"PASS: 200 RC"*"host run 1: 0"* ]]
	# the device rxe-ci made is gone again
	[[ "$output" == *"host run 1: 0"$'\n'"0"$'\n'* ]]
	[[ "$output" == *"rxe-ci: rxectl doctor rxe_eth0 (exit 1):"*"4791"*"Soft-RoCE did not come up on the host"*"rxectl doctor found a failing check (above)"*"host run 2: 123"* ]]
	[[ "$output" != *should-not-run* ]]
}
