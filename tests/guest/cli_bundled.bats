#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl with the bundled rdma_rxe (driver/rdma_rxe.ko) loaded instead of the in-tree one
# (run in the VM test bed after `make driver`).

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
	load_bundled_driver
}

setup() {
	use_empty_config
}

teardown() {
	"$RXECTL" down --all >/dev/null 2>&1 || true
}

@test "up uses the bundled driver that is loaded and does not load the in-tree one" {
	run -0 "$RXECTL" up eth0
	[[ "$output" == "rxe_eth0 on eth0 was created and is ACTIVE"*"(RoCE v2, 192.0.2.1)." ]]
	[[ "$(cat /sys/module/rdma_rxe/version)" == rxectl-bundled* ]]
}

@test "status reports the driver as bundled" {
	"$RXECTL" up eth0
	[ "$("$RXECTL" status --json | jq -r '.devices[0].driver')" = bundled ]
	run -0 "$RXECTL" status
	[[ "${lines[0]}" == *", driver bundled" ]]
}

@test "status shows the bundled device's capabilities as ibv_devinfo reports them" {
	"$RXECTL" up eth0
	mine=$("$RXECTL" status --json | jq -cS '.devices[0].capabilities')
	echo "rxectl: $mine"; echo "devinfo: $(devinfo_caps rxe_eth0)"
	[ "$mine" = "$(devinfo_caps rxe_eth0)" ]
	[ "$(jq -r .max_qp <<< "$mine")" -gt 0 ]
}

@test "status --json agrees with rdma -j link under the bundled driver" {
	"$RXECTL" up eth0
	mine=$("$RXECTL" status --json | jq -c '[.devices[] | {name, netdev, state, physical_state}]')
	theirs=$(rdma -j link show | jq -c '[.[] | {name: .ifname, netdev, state, physical_state}]')
	[ "$mine" = "$theirs" ]
}

@test "down removes a device of the bundled driver" {
	"$RXECTL" up eth0
	run -0 "$RXECTL" down eth0
	[ "$(rdma -j link show | jq length)" -eq 0 ]
}
