#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# A netdev whose name needs escaping in a unit name (rx-h0 -> rxe@rx\x2dh0.service): the udev
# rule alone (the monitor is stopped) starts the right unit, and the unit creates the device.
#   tests/run-all tests/guest/systemd/persist_escape.bats

bats_require_minimum_version 1.5.0

RXECTL=/usr/sbin/rxectl
UNIT='rxe@rx\x2dh0.service'

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "not in the systemd test bed guest"
	cd "$BATS_TEST_DIRNAME/../../.."
	make -s -o rxectl install PREFIX=/usr >/dev/null
	systemctl daemon-reload
	udevadm control --reload
}

teardown_file() {
	ip link del rx-h0 2>/dev/null || true
}

@test "enable escapes the netdev name in the unit name" {
	run -0 "$RXECTL" enable rx-h0
	echo "$output"
	[[ "$output" == *"$UNIT is enabled"* ]]
	[ "$(systemctl is-enabled "$UNIT")" = enabled ]
	systemctl stop rxe-monitor.service	# only udev and the unit from here on
}

@test "the udev rule starts the escaped unit when the netdev appears, and it creates the device" {
	ip link add rx-h0 type dummy
	ip addr add 198.51.100.49/24 dev rx-h0
	ip link set rx-h0 up
	for _ in $(seq 1 300); do
		[ "$(systemctl is-active "$UNIT")" = active ] && break
		sleep 0.1
	done
	udevadm info -q property /sys/class/net/rx-h0 | grep -E 'RXE|SYSTEMD' | sed 's/^/# udev: /' >&3
	systemctl show -P Wants 'sys-subsystem-net-devices-rx\x2dh0.device' | sed 's/^/# device wants: /' >&3
	[ "$(systemctl is-active "$UNIT")" = active ] || { systemctl status "$UNIT"; false; }
	[ "$(rdma -j link show | jq -r '.[] | select(.netdev == "rx-h0") | "\(.ifname):\(.state)"')" = rxe_rx-h0:ACTIVE ]
}
