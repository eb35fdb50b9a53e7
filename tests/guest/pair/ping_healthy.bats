#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl ping between two healthy guests: facts exchanged, every size passes, JSON rows complete.
# Guest a listens; guest b pings.  Sizes stay small: the guests run under TCG.

bats_require_minimum_version 1.5.0
load ping_lib

setup_file() {
	[ -n "${VM_ROLE:-}" ] || skip "not in a pair of test bed guests"
	rxe_up
	# Listen on the address of one device (DEVICE form of --listen).
	[ "$VM_ROLE" = a ] && start_listener rxe_eth0
	barrier listening
}

teardown() {
	end_barriers
}

teardown_file() {
	[ "${VM_ROLE:-}" = a ] && stop_listener
	"$RXECTL" down --all >/dev/null 2>&1 || true
}

@test "ping passes send, write and read at every size and prints both sides' facts" {
	end_barrier text-done
	if [ "$VM_ROLE" = b ]; then
		run -0 "$RXECTL" ping "$VM_PEER_IP" --sizes 1-64K --count 3 --timeout 10
		echo "$output"
		[[ "$output" == *"device "*"rxe_eth0"*"rxe_eth0"* ]]
		[[ "$output" == *"netdev MTU"*"1500"*"1500"* ]]
		[[ "$output" == *"RoCE active MTU"*"1024"*"1024"* ]]
		[[ "$output" == *"::ffff:192.0.2.2"*"::ffff:192.0.2.1"* ]]
		[ "$(grep -c ' yes$' <<< "$output")" -eq 51 ]
		[[ "$output" == *"passed at 17 sizes (1 to 64K bytes, 3 each), every byte verified."* ]]
	fi
	barrier text-done
	if [ "$VM_ROLE" = a ]; then
		listener_log
		grep -q "^listening on 192.0.2.1 port 7174" "$BATS_FILE_TMPDIR/listener.log"
		grep -q "^192.0.2.2: connected (rxe_eth0" "$BATS_FILE_TMPDIR/listener.log"
		grep -q "^192.0.2.2: disconnected after" "$BATS_FILE_TMPDIR/listener.log"
	fi
}

@test "ping --json prints one complete row per size and operation" {
	end_barrier json-done
	if [ "$VM_ROLE" = b ]; then
		run -0 "$RXECTL" ping "$VM_PEER_IP" --json --sizes 1,4K,64K --count 2 --timeout 10
		echo "$output"
		jq -e '.result == "pass" and .host == "192.0.2.1" and .port == 7174' <<< "$output"
		jq -e '.local.device == "rxe_eth0" and .peer.gid == "::ffff:192.0.2.1"
			and .peer.netdev_mtu == 1500 and .local.active_mtu == 1024' <<< "$output"
		jq -e '[.results[] | "\(.op) \(.size)"] == ["send 1","write 1","read 1",
			"send 4096","write 4096","read 4096","send 65536","write 65536","read 65536"]' \
			<<< "$output"
		jq -e 'all(.results[]; .passed == true and .count == 2 and .latency_min_ns > 0
			and .latency_avg_ns >= .latency_min_ns and .latency_max_ns >= .latency_avg_ns
			and .bandwidth_bytes_per_sec > 0)' <<< "$output"
	fi
	barrier json-done
}

@test "the listener survives a client killed mid-test and serves the next one" {
	end_barrier kill-done
	if [ "$VM_ROLE" = b ]; then
		"$RXECTL" ping "$VM_PEER_IP" --sizes 1-1M --count 50 --timeout 10 \
			> "$BATS_TEST_TMPDIR/killed.out" 2>&1 3>&- &
		pid=$!
		# Kill it mid-sweep: once the table has started.
		for _ in $(seq 300); do
			grep -q "  send " "$BATS_TEST_TMPDIR/killed.out" && break
			sleep 0.2
		done
		sleep 1
		kill -KILL "$pid"
		wait "$pid" || true
		run -0 "$RXECTL" ping "$VM_PEER_IP" --sizes 1,1K --count 2 --timeout 10
	fi
	barrier kill-done
	if [ "$VM_ROLE" = a ]; then
		listener_log
		kill -0 "$(cat "$BATS_FILE_TMPDIR/listener.pid")"
		[ "$(grep -c '^192.0.2.2: connected' "$BATS_FILE_TMPDIR/listener.log")" -ge 4 ]
	fi
}

@test "the listener stops cleanly on SIGTERM" {
	end_barrier term-done
	if [ "$VM_ROLE" = a ]; then
		pid=$(cat "$BATS_FILE_TMPDIR/listener.pid")
		kill -TERM "$pid"
		run -0 wait_exit "$pid"
		listener_log
		grep -q "^stopped after [0-9]* clients" "$BATS_FILE_TMPDIR/listener.log"
		for _ in $(seq 20); do grep -q "^exit status" "$BATS_FILE_TMPDIR/listener.log" && break; sleep 0.1; done
		grep -q "^exit status 0$" "$BATS_FILE_TMPDIR/listener.log"
		rm -f "$BATS_FILE_TMPDIR/listener.pid"
	fi
	barrier term-done
}

# The listener is not our child in this test's shell: poll until it is gone.
wait_exit() {
	for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.2; done
	return 1
}
