#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# `rxectl monitor` in the foreground against the guest kernel's rdma_rxe: a signal is acted on
# when it arrives (a signalfd in the same poll() as the rtnetlink notifications), not after the
# next poll timeout, which can be 30 s away (issue 14); run inside the VM test bed:
#   tests/run-all tests/guest/cli_monitor.bats

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
}

setup() {
	use_empty_config
	ip link add rxm0 type veth peer name rxm1
	ip addr add 198.51.100.1/24 dev rxm0
	ip link set rxm1 up
	ip link set rxm0 up
	printf '[rxm0]\nname = rm0\n' > "$RXECTL_CONFIG"
	LOG="$BATS_TEST_TMPDIR/monitor.log"
	"$RXECTL" monitor > "$LOG" 2>&1 3>&- &
	MON=$!
	# up and idle: it created the device and its checks after that are done (2 s after the
	# last notification), so it sits in poll() until its 30 s periodic check
	for _ in $(seq 100); do
		"$RXECTL" status --json 2>/dev/null | jq -e '.devices[] | select(.name == "rm0")' \
			>/dev/null && break
		sleep 0.1
	done
	grep -q 'watching the netdevs declared in' "$LOG"
	sleep 3
}

teardown() {
	kill -KILL "$MON" 2>/dev/null || true
	wait "$MON" 2>/dev/null || true
	"$RXECTL" down --all >/dev/null 2>&1 || true
	ip link del rxm0 2>/dev/null || true
}

# gone_within TENTHS: the monitor exited within TENTHS tenths of a second
gone_within() {
	for _ in $(seq "$1"); do
		kill -0 "$MON" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

@test "monitor: SIGTERM while idle stops it within a second, exit 0, and it says so" {
	kill -TERM "$MON"
	gone_within 10 || { cat "$LOG"; false; }
	rc=0; wait "$MON" || rc=$?
	[ "$rc" = 0 ]
	grep -q 'stopping\.' "$LOG"
	# the device stays: the monitor only keeps devices alive, it never removes them
	"$RXECTL" status --json | jq -e '.devices[] | select(.name == "rm0")' >/dev/null
}

@test "monitor: SIGHUP while idle re-reads rxe.conf at once, and it keeps running" {
	kill -HUP "$MON"
	for _ in $(seq 10); do
		grep -q "reloading $RXECTL_CONFIG" "$LOG" && break
		sleep 0.1
	done
	grep -q "reloading $RXECTL_CONFIG" "$LOG" || { cat "$LOG"; false; }
	kill -0 "$MON"
}

@test "monitor: SIGINT stops it as SIGTERM does" {
	kill -INT "$MON"
	gone_within 10 || { cat "$LOG"; false; }
	rc=0; wait "$MON" || rc=$?
	[ "$rc" = 0 ]
}
