#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl driver: which rdma_rxe is loaded and installed, and switching between the in-tree and
# the bundled one with and without devices (run in the VM test bed after `make driver`).

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
}

setup() {
	use_empty_config
}

teardown() {
	"$RXECTL" down --all >/dev/null 2>&1 || true
	ip link del rxd0 2>/dev/null || true
	! grep -q '^rdma_rxe ' /proc/modules || rmmod rdma_rxe
}

stock_file() { realpath "/lib/modules/$(uname -r)/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko"; }
bundled_file() { realpath "/lib/modules/$(uname -r)/updates/rdma_rxe.ko"; }
loaded() { "$RXECTL" driver --json | jq -r '.loaded.kind'; }

# First in this file: the bundled driver is not installed yet.
@test "driver status: the kernel ships rdma_rxe, the in-tree module is installed, none loaded" {
	run -0 --separate-stderr "$RXECTL" driver --json
	[ "$(jq -r .kernel <<<"$output")" = "$(uname -r)" ]
	[ "$(jq -c '[.kernel_ships_rdma_rxe, .loaded]' <<<"$output")" = '[true,null]' ]
	[ "$(jq -c '.installed' <<<"$output")" = "[{\"kind\":\"in-tree\",\"version\":null,\"file\":\"$(stock_file)\",\"modprobe_default\":true}]" ]
	run -0 "$RXECTL" driver status
	[ "${lines[0]}" = "kernel $(uname -r): ships rdma_rxe" ]
	[ "${lines[1]}" = "loaded: none (rdma_rxe is not loaded; \`rxectl up\` loads it)" ]
}

@test "with the bundled driver in updates/, status lists both and modprobe would load the bundled one" {
	install_bundled_driver
	run -0 --separate-stderr "$RXECTL" driver --json
	ver=$(modinfo -F version "$(bundled_file)")
	[[ "$ver" == rxectl-bundled* ]]
	[ "$(jq -c '[.installed[] | {kind, version, modprobe_default}] | sort_by(.kind)' <<<"$output")" = "[{\"kind\":\"bundled\",\"version\":\"$ver\",\"modprobe_default\":true},{\"kind\":\"in-tree\",\"version\":null,\"modprobe_default\":false}]" ]
}

@test "up with no choice (auto) loads the in-tree driver when the kernel ships it" {
	run -0 "$RXECTL" up eth0
	[ "$(loaded)" = in-tree ]
	[ "$("$RXECTL" driver --json | jq -r .loaded.file)" = "$(stock_file)" ]
}

@test "driver use bundled without devices loads the installed bundled module" {
	"$RXECTL" up eth0 >/dev/null; "$RXECTL" down --all >/dev/null	# in-tree loaded, no devices
	[ "$(loaded)" = in-tree ]
	run -0 "$RXECTL" driver use bundled
	[ "$output" = "rdma_rxe is now the bundled driver ($(bundled_file)); until the next reboot or unload." ]
	run -0 --separate-stderr "$RXECTL" driver --json
	[ "$(jq -r .loaded.version <<<"$output")" = "$(cat /sys/module/rdma_rxe/version)" ]
	[ "$(jq -r .loaded.file <<<"$output")" = "$(bundled_file)" ]
}

@test "driver use kernel switches back, and a second use changes nothing" {
	"$RXECTL" driver use bundled >/dev/null
	run -0 "$RXECTL" driver use kernel
	[ "$(loaded)" = in-tree ]
	run -0 "$RXECTL" driver use kernel --json
	[ "$(jq -c . <<<"$output")" = '{"driver":"in-tree","changed":false}' ]
}

@test "driver use with devices present is refused with exit 1 and keeps them" {
	"$RXECTL" up eth0 >/dev/null
	run -1 "$RXECTL" driver use bundled
	[ "$output" = "rxectl: rxe devices exist (rxe_eth0 on eth0), and switching the driver removes them; take them down with \`rxectl down --all\` first, or run \`rxectl driver use bundled --force\` to take them down and bring the ones declared in rxe.conf back up on the new driver." ]
	[ "$(loaded)" = in-tree ]
	[ "$(rdma -j link show | jq -r '.[0].ifname')" = rxe_eth0 ]
}

@test "driver use --force brings the declared devices back up on the new driver, not the others" {
	printf '[eth0]\nname = rxe_decl\n' > "$RXECTL_CONFIG"
	ip link add rxd0 type veth peer name rxd1
	ip link set rxd0 up; ip link set rxd1 up
	"$RXECTL" up >/dev/null
	"$RXECTL" up rxd0 >/dev/null
	[ "$(rdma -j link show | jq -c '[.[].ifname] | sort')" = '["rxe_decl","rxe_rxd0"]' ]
	run -0 --separate-stderr "$RXECTL" driver use bundled --force
	[ "$(loaded)" = bundled ]
	[ "$(rdma -j link show | jq -c '[.[] | {ifname, netdev}]')" = '[{"ifname":"rxe_decl","netdev":"eth0"}]' ]
	[[ "$stderr" == *"rxe_rxd0 on rxd0 is not declared in $RXECTL_CONFIG, so it stays down; \`rxectl up rxd0\` creates it again."* ]]
	[[ "$stderr" == *"rxe_decl on eth0 was created again on the new driver."* ]]
	run -0 "$RXECTL" driver use kernel --force
	[ "$(loaded)" = in-tree ]
	[ "$(rdma -j link show | jq -r '.[0].ifname')" = rxe_decl ]
}

@test "status shows the kernel, the driver in use and its version" {
	"$RXECTL" driver use bundled >/dev/null
	"$RXECTL" up eth0 >/dev/null
	run -0 --separate-stderr "$RXECTL" status --json
	[ "$(jq -r .kernel <<<"$output")" = "$(uname -r)" ]
	[ "$(jq -c .driver <<<"$output")" = "{\"loaded\":true,\"kind\":\"bundled\",\"version\":\"$(cat /sys/module/rdma_rxe/version)\"}" ]
	run -0 "$RXECTL" status
	[ "${lines[-1]}" = "kernel $(uname -r), driver bundled $(cat /sys/module/rdma_rxe/version)" ]
}

@test "driver rejects bad input with exit 2" {
	run -2 "$RXECTL" driver use
	[[ "$output" == "rxectl: driver use needs kernel, bundled or auto."* ]]
	run -2 "$RXECTL" driver use fast
	[[ "$output" == "rxectl: unknown driver 'fast'; use kernel, bundled or auto."* ]]
	run -2 "$RXECTL" driver swap
	[[ "$output" == "rxectl: unknown driver action 'swap'; use status or use."* ]]
	run -2 "$RXECTL" driver --force
}
