#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl debug: rdma_rxe's debug messages through dynamic debug (run in the VM test bed).

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
}

setup() {
	use_empty_config
}

teardown() {
	"$RXECTL" debug off >/dev/null 2>&1 || true
	"$RXECTL" down --all >/dev/null 2>&1 || true
}

traffic() {
	local g
	g=$(gid_index rxe_eth0)
	ibv_rc_pingpong -d rxe_eth0 -g "$g" -n 3 >/dev/null 2>&1 &
	sleep 1
	ibv_rc_pingpong -d rxe_eth0 -g "$g" -n 3 127.0.0.1 >/dev/null
	wait
}

rxe_lines() { dmesg | grep -c 'rdma_rxe: ' || true; }

@test "debug before rdma_rxe is loaded says to load it first, exit 1" {
	[ ! -d /sys/module/rdma_rxe ] || skip "rdma_rxe is already loaded"
	run -1 "$RXECTL" debug on
	[ "$output" = "rxectl: rdma_rxe is not loaded, and its debug messages exist only while it is; run \`rxectl up\` first." ]
}

@test "debug on puts rxe debug lines in the kernel log under traffic, debug off stops them" {
	"$RXECTL" up eth0 >/dev/null
	n0=$(rxe_lines)
	run -0 --separate-stderr "$RXECTL" debug on
	[[ "$output" == "rdma_rxe debug messages are on: "*" of "*" call sites print (/proc/dynamic_debug/control); read them with \`dmesg -w\` or \`journalctl -k -f\`." ]]
	traffic
	n1=$(rxe_lines)
	[ "$n1" -gt "$n0" ]
	run -0 "$RXECTL" debug off
	[[ "$output" == "rdma_rxe debug messages are off: 0 of "* ]]
	traffic
	[ "$(rxe_lines)" -eq "$n1" ]
}

@test "debug status --json counts the enabled call sites as the control file does" {
	"$RXECTL" up eth0 >/dev/null
	"$RXECTL" debug on >/dev/null 2>&1
	run -0 "$RXECTL" debug status --json
	[ "$(jq -r .enabled <<<"$output")" = true ]
	total=$(grep -c ' \[rdma_rxe\]' /proc/dynamic_debug/control)
	[ "$(jq -r .sites <<<"$output")" -eq "$total" ]
	[ "$(jq -r .sites_enabled <<<"$output")" -eq "$(grep ' \[rdma_rxe\]' /proc/dynamic_debug/control | grep -c ' =p')" ]
}

@test "debug with a device says the switch covers every rxe device" {
	"$RXECTL" up eth0 >/dev/null
	run -0 "$RXECTL" debug status rxe_eth0
	[[ "$output" == *"; this covers every rxe device, rxe_eth0 included; "* ]]
}

@test "debug with the bundled driver switches its messages too" {
	load_bundled_driver
	"$RXECTL" up eth0 >/dev/null
	"$RXECTL" debug on >/dev/null 2>&1
	[ "$(grep ' \[rdma_rxe\]' /proc/dynamic_debug/control | grep -c ' =p')" -gt 0 ]
	"$RXECTL" debug off >/dev/null
	[ "$(grep ' \[rdma_rxe\]' /proc/dynamic_debug/control | grep -c ' =p')" -eq 0 ]
	"$RXECTL" down --all >/dev/null
	rmmod rdma_rxe
}

@test "debug rejects bad input with exit 2" {
	run -2 "$RXECTL" debug
	[[ "$output" == "rxectl: debug needs on, off or status."* ]]
	run -2 "$RXECTL" debug loud
	[[ "$output" == "rxectl: unknown debug action 'loud'; use on, off or status."* ]]
}
