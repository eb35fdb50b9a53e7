#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# What `up` does with rxe.conf's keys (config_apply.c) against the guest kernel: a netdev's
# `mtu =`, [global] `driver =` and `tune = yes` (run inside the VM test bed:
#   tests/run-all tests/guest/cli_config.bats).

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
}

setup() {
	use_empty_config
	ip link add rxt0 type veth peer name rxt1
	ip addr add 198.51.100.1/24 dev rxt0
	ip link set rxt1 up
	ip link set rxt0 up
}

teardown() {
	"$RXECTL" down --all >/dev/null 2>&1 || true
	ip link del rxt0 2>/dev/null || true
	"$RXECTL" tune --revert >/dev/null 2>&1 || true
}

active_mtu() { # DEVICE
	"$RXECTL" status --json | jq -r --arg d "$1" '.devices[] | select(.name == $d) | .active_mtu'
}

@test "up sets the MTU that mtu = declares, says so, and the RoCE active MTU follows" {
	printf '[rxt0]\nname = rc0\nmtu = 4200\n' > "$RXECTL_CONFIG"
	[ "$(cat /sys/class/net/rxt0/mtu)" = 1500 ]
	run -0 --separate-stderr "$RXECTL" up rxt0
	[[ "$stderr" == *"set the MTU of rxt0 from 1500 to 4200, as $RXECTL_CONFIG line 3 says"* ]]
	[ "$(cat /sys/class/net/rxt0/mtu)" = 4200 ]
	[ "$(active_mtu rc0)" = 4096 ]
	# declared and already so: nothing is said
	run -0 --separate-stderr "$RXECTL" up
	[[ "$stderr" != *"set the MTU"* ]]
}

@test "up NETDEV of an undeclared netdev leaves its MTU alone" {
	printf '[eth0]\nmtu = 4200\n' > "$RXECTL_CONFIG"
	run -0 "$RXECTL" up rxt0
	[ "$(cat /sys/class/net/rxt0/mtu)" = 1500 ]
	[ "$(cat /sys/class/net/eth0/mtu)" != 4200 ] || ip link set eth0 mtu 1500
}

@test "an MTU the netdev does not take fails with exit 1, says why, and creates nothing" {
	# a macvlan takes at most its lower device's MTU (and, unlike a VLAN, may carry rxe)
	ip link add link rxt0 name rxt0m type macvlan mode bridge
	ip link set rxt0m up
	printf '[rxt0m]\nmtu = 9000\n' > "$RXECTL_CONFIG"
	run -1 --separate-stderr "$RXECTL" up
	[[ "$stderr" == *"rxt0m"*"MTU"*"9000"*"$RXECTL_CONFIG line 2"* ]]
	[ "$(cat /sys/class/net/rxt0m/mtu)" = 1500 ]
	[ "$(rdma -j link show | jq 'map(select(.netdev == "rxt0m")) | length')" = 0 ]
}

@test "driver = kernel while the bundled driver is loaded: up keeps it and warns, naming driver use" {
	"$RXECTL" down --all >/dev/null 2>&1 || true
	load_bundled_driver
	printf '[global]\ndriver = kernel\n[rxt0]\n' > "$RXECTL_CONFIG"
	run -0 --separate-stderr "$RXECTL" up rxt0
	[[ "$stderr" == *"$RXECTL_CONFIG (line 1) chooses driver = kernel, but the bundled rdma_rxe is loaded already"*"rxectl driver use kernel"* ]]
	"$RXECTL" down --all
	rmmod rdma_rxe
}

@test "driver = bundled loads the bundled rdma_rxe when none is loaded" {
	"$RXECTL" down --all >/dev/null 2>&1 || true
	! grep -q '^rdma_rxe ' /proc/modules || rmmod rdma_rxe
	install_bundled_driver
	printf '[global]\ndriver = bundled\n\n[rxt0]\n' > "$RXECTL_CONFIG"
	run -0 "$RXECTL" up rxt0
	[[ "$(cat /sys/module/rdma_rxe/version)" == rxectl-bundled* ]]
	"$RXECTL" down --all
	rmmod rdma_rxe
	# and driver = kernel (the default auto too, on this kernel) loads the kernel's
	printf '[global]\ndriver = kernel\n\n[rxt0]\n' > "$RXECTL_CONFIG"
	run -0 "$RXECTL" up rxt0
	[ ! -e /sys/module/rdma_rxe/version ] || [[ "$(cat /sys/module/rdma_rxe/version)" != rxectl-bundled* ]]
	rm -f "/lib/modules/$(uname -r)/updates/rdma_rxe.ko"
	depmod
}

@test "tune = yes: up applies tune's values but the MTU, and tune --revert restores them" {
	sysctl -w net.core.rmem_max=212992 >/dev/null
	printf '[global]\ntune = yes\n[rxt0]\n' > "$RXECTL_CONFIG"
	want=$("$RXECTL" tune rxt0 --json | jq -r '.tunables[] | select(.id == "net.core.rmem_max") | .recommended')
	[ -n "$want" ] && [ "$want" != null ]
	run -0 --separate-stderr "$RXECTL" up rxt0
	[[ "$stderr" == *"tuned net.core.rmem_max: 212992 -> $want (rxe.conf says tune = yes"* ]]
	[ "$(sysctl -n net.core.rmem_max)" = "$want" ]
	[ "$(cat /sys/class/net/rxt0/mtu)" = 1500 ]
	run -0 "$RXECTL" tune --revert
	[ "$(sysctl -n net.core.rmem_max)" = 212992 ]
}

@test "tune = no (the default) changes no tunable" {
	sysctl -w net.core.rmem_max=212992 >/dev/null
	printf '[global]\ntune = no\n[rxt0]\n' > "$RXECTL_CONFIG"
	run -0 --separate-stderr "$RXECTL" up rxt0
	[[ "$stderr" != *tuned* ]]
	[ "$(sysctl -n net.core.rmem_max)" = 212992 ]
}
