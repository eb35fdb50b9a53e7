#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl on a kernel that ships no rdma_rxe (like Debian's cloud kernel): this guest's 6.1 kernel
# with the in-tree module removed from its module tree and modules.order (hide_stock_rxe).

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
	hide_stock_rxe
}

setup() {
	use_empty_config
}

teardown() {
	"$RXECTL" down --all >/dev/null 2>&1 || true
}

# First in this file: the bundled driver is not installed yet.
@test "up says this kernel ships no rdma_rxe and how to get the bundled one" {
	run -1 "$RXECTL" up eth0
	[ "$output" = "rxectl: kernel $(uname -r) does not ship rdma_rxe (it is built without CONFIG_RDMA_RXE, like Debian's cloud kernels) and the bundled driver is not installed; install it with the rxe-dkms package or \`make -C driver dkms-install\` (see README)." ]
	[[ "$output" != *linux-modules-extra* ]]
	[ ! -d /sys/module/rdma_rxe ]
}

@test "doctor fails module.rdma_rxe the same way, never naming linux-modules-extra" {
	run -1 --separate-stderr "$RXECTL" doctor eth0 --json
	c=$(jq -c '.checks[] | select(.id == "module.rdma_rxe")' <<<"$output")
	[ "$(jq -r .status <<<"$c")" = fail ]
	[ "$(jq -r .summary <<<"$c")" = "kernel $(uname -r) does not ship rdma_rxe (it is built without CONFIG_RDMA_RXE, like Debian's cloud kernels), and the bundled driver is not installed." ]
	[ "$(jq -r .fix <<<"$c")" = "install the bundled driver: the rxe-dkms package, or \`make -C driver dkms-install\` from the rxectl source (see README)." ]
}

@test "driver status says the kernel ships none and nothing is installed" {
	run -0 --separate-stderr "$RXECTL" driver --json
	[ "$(jq -c '[.kernel_ships_rdma_rxe, .loaded, .installed]' <<<"$output")" = '[false,null,[]]' ]
	run -0 "$RXECTL" driver
	[ "${lines[0]}" = "kernel $(uname -r): does not ship rdma_rxe (built without CONFIG_RDMA_RXE)" ]
}

@test "with the bundled driver installed, up uses it and says so" {
	install_bundled_driver
	file=$(realpath "/lib/modules/$(uname -r)/updates/rdma_rxe.ko")
	ver=$(modinfo -F version "$file")
	run -0 --separate-stderr "$RXECTL" up eth0
	[ "$stderr" = "rxectl: kernel $(uname -r) does not ship rdma_rxe; using the bundled driver $ver ($file)." ]
	[[ "$output" == "rxe_eth0 on eth0 was created and is ACTIVE"* ]]
	[ "$(cat /sys/module/rdma_rxe/version)" = "$ver" ]
}

@test "status shows the kernel and the bundled driver with its version" {
	"$RXECTL" up eth0 >/dev/null 2>&1
	run -0 "$RXECTL" status
	[ "${lines[-1]}" = "kernel $(uname -r), driver bundled $(cat /sys/module/rdma_rxe/version)" ]
	run -0 "$RXECTL" doctor eth0
	[[ "$output" == *"rdma_rxe is loaded (the bundled driver)."* ]]
}

@test "driver use kernel is refused: this kernel ships none" {
	"$RXECTL" down --all >/dev/null
	rmmod rdma_rxe
	run -1 "$RXECTL" driver use kernel
	[[ "$output" == "rxectl: kernel $(uname -r) does not ship rdma_rxe (it is built without CONFIG_RDMA_RXE, like Debian's cloud kernels), but the kernel's driver was chosen;"* ]]
	[ ! -d /sys/module/rdma_rxe ]
}
