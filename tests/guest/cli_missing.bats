#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# A configured netdev that goes away: its device disappears with it and `status` lists the
# netdev as missing until `rxectl up` (run in the VM test bed).

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
}

setup() {
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR/rxe.conf"
	printf '# test\n[rxm0]\n' > "$RXECTL_CONFIG"
}

teardown() {
	"$RXECTL" down --all >/dev/null 2>&1 || true
	ip link del rxm0 2>/dev/null || true
}

make_veth() {
	ip link add rxm0 type veth peer name rxm1
	ip addr add 203.0.113.1/24 dev rxm0
	ip link set rxm1 up
	ip link set rxm0 up
}

# First in this file, while rdma_rxe is not loaded yet in this boot.
@test "up on a kernel whose rdma_rxe is missing names the fix" {
	[ ! -d /sys/module/rdma_rxe ] || skip "rdma_rxe is already loaded"
	dir=$(dirname "$(modinfo -n rdma_rxe)")
	mount -t tmpfs none "$dir"	# hide the module file, as if the package were not installed
	run -1 "$RXECTL" up eth0
	umount "$dir"
	[ "$output" = "rxectl: rdma_rxe is not available for kernel $(uname -r); install your distribution's extra kernel modules package (for example linux-modules-extra-$(uname -r) on Ubuntu), or build and install the bundled driver with \`make -C driver module-install\` (or \`make -C driver dkms-install\`; see README)." ]
	[ ! -d /sys/module/rdma_rxe ]
}

@test "a configured netdev that does not exist is listed as missing" {
	run -0 --separate-stderr "$RXECTL" status --json
	[ "$(echo "$output" | jq -c '.missing')" = '[{"netdev":"rxm0","name":"rxe_rxm0","netdev_exists":false}]' ]
	run -0 "$RXECTL" status
	[ "${lines[0]}" = "missing: rxm0 (rxe_rxm0, declared in $RXECTL_CONFIG:2): netdev rxm0 does not exist" ]
}

@test "a netdev deleted and re-created stays missing until up" {
	make_veth
	run -0 "$RXECTL" up
	[ "$("$RXECTL" status --json | jq -c '[.devices[].name, (.missing | length)]')" = '["rxe_rxm0",0]' ]

	ip link del rxm0
	[ "$("$RXECTL" status --json | jq -c '[(.devices | length), .missing[0].netdev_exists]')" = '[0,false]' ]
	[ "$(rdma -j link show | jq length)" -eq 0 ]

	make_veth
	run -0 --separate-stderr "$RXECTL" status --json
	[ "$(echo "$output" | jq -c '[(.devices | length), .missing[0].netdev, .missing[0].netdev_exists]')" = '[0,"rxm0",true]' ]
	run -0 "$RXECTL" status
	[[ "$output" == *"rxm0 has no rxe device; create it with \`rxectl up rxm0\`"* ]]

	run -0 "$RXECTL" up
	[[ "$output" == "rxe_rxm0 on rxm0 was created and is ACTIVE"* ]]
	[ "$("$RXECTL" status --json | jq -c '[.devices[].name, (.missing | length)]')" = '["rxe_rxm0",0]' ]
}

@test "a device on an unconfigured netdev is listed but not missing" {
	"$RXECTL" up eth0
	run -0 --separate-stderr "$RXECTL" status --json
	[ "$(echo "$output" | jq -c '[.devices[].name]')" = '["rxe_eth0"]' ]
	[ "$(echo "$output" | jq -c '[.missing[].netdev]')" = '["rxm0"]' ]
}

@test "status with no devices and nothing configured says so" {
	: > "$RXECTL_CONFIG"
	run -0 "$RXECTL" status
	[ "${lines[0]}" = "no rxe devices." ]
	[ "$("$RXECTL" status --json | jq -c '{devices, missing}')" = '{"devices":[],"missing":[]}' ]
}
