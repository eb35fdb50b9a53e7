#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The bundled rdma_rxe driver's device life cycle in the VM test bed: load, link add/delete,
# port state, rmmod with devices present, reload; then a clean kernel log.
#   tests/vm/vm-run -- bats tests/guest/driver_link.bats

bats_require_minimum_version 1.5.0
load lib

KO=$(bundled_ko)   # driver/ or driver/build/KVER/ (kernel rows)

setup_file() {
	require_guest
	load_bundled_driver
}

teardown() {
	rdma link del rxe0 2>/dev/null || true
	rdma link del rxv0 2>/dev/null || true
	ip link del rxt0 2>/dev/null || true
}

teardown_file() {
	rmmod rdma_rxe 2>/dev/null || true
}

port_state() {
	cat "/sys/class/infiniband/$1/ports/1/state"
}

@test "the loaded rdma_rxe says it is the bundled build" {
	run -0 cat /sys/module/rdma_rxe/version
	[[ "$output" == rxectl-bundled-* ]]
}

@test "link add on eth0 gives an ACTIVE port with RoCE v2 GIDs for its IPv6 and IPv4 addresses" {
	run -0 rdma link add rxe0 type rxe netdev eth0
	run -0 ibv_devinfo -v -d rxe0
	[[ "$output" == *"PORT_ACTIVE (4)"* ]]
	[[ "$output" == *"::ffff:192.0.2.1, RoCE v2"* ]]
	[[ "$output" == *"fe80::"*", RoCE v2"* ]]
	[[ "$output" != *"RoCE v1"* ]]
	[ "$(port_state rxe0)" = "4: ACTIVE" ]
}

@test "rdma-core's rxe provider binds to the device: uverbs ABI 2, bundled version as firmware" {
	run -0 rdma link add rxe0 type rxe netdev eth0
	run -0 ibv_devices
	[[ "$output" == *rxe0* ]]
	[ "$(cat /sys/class/infiniband_verbs/uverbs0/abi_version)" = 2 ]
	[[ "$(cat /sys/class/infiniband/rxe0/fw_ver)" == rxectl-bundled-* ]]
}

@test "the kernel's MAD layer gets its GSI QP (QPN 1) on the new device, in RTS" {
	run -0 rdma link add rxe0 type rxe netdev eth0
	run -0 rdma res show qp link rxe0/1
	[[ "$output" == *"lqpn 1 "*"type GSI"*"state RTS"* ]]
}

@test "a link with a name not starting with rxe still binds rdma-core's rxe provider (driver id)" {
	run -0 rdma link add rxv0 type rxe netdev eth0
	rdma link del rxv0
	run -0 rdma link add foo0 type rxe netdev eth0
	run -0 ibv_devinfo -d foo0
	[[ "$output" == *"PORT_ACTIVE"* ]]
	rdma link del foo0
}

@test "a second link on the same netdev is refused" {
	run -0 rdma link add rxe0 type rxe netdev eth0
	run ! rdma link add rxv0 type rxe netdev eth0
}

@test "link add works on a veth, whose port follows the veth going down and up" {
	ip link add rxt0 type veth peer name rxt1
	ip addr add 198.51.100.1/24 dev rxt0
	ip link set rxt1 up
	ip link set rxt0 up
	run -0 rdma link add rxv0 type rxe netdev rxt0
	[ "$(port_state rxv0)" = "4: ACTIVE" ]
	ip link set rxt0 down
	[ "$(port_state rxv0)" = "1: DOWN" ]
	ip link set rxt0 up
	sleep 1
	[ "$(port_state rxv0)" = "4: ACTIVE" ]
}

@test "deleting the netdev removes its rxe device" {
	ip link add rxt0 type veth peer name rxt1
	ip link set rxt0 up
	run -0 rdma link add rxv0 type rxe netdev rxt0
	ip link del rxt0
	for _ in $(seq 20); do [ -e /sys/class/infiniband/rxv0 ] || break; sleep 0.2; done
	[ ! -e /sys/class/infiniband/rxv0 ]
}

@test "deleting and re-adding the link 50 times leaves one working device" {
	for i in $(seq 50); do
		rdma link add rxe0 type rxe netdev eth0
		rdma link del rxe0
	done
	run -0 rdma link add rxe0 type rxe netdev eth0
	[ "$(port_state rxe0)" = "4: ACTIVE" ]
	run -0 rdma link show
	[ "$(grep -c '^link ' <<<"$output")" = 1 ]
}

@test "rmmod with devices present removes them, and the module loads again" {
	run -0 rdma link add rxe0 type rxe netdev eth0
	ip link add rxt0 type veth peer name rxt1
	ip link set rxt0 up
	run -0 rdma link add rxv0 type rxe netdev rxt0
	run -0 rmmod rdma_rxe
	[ -z "$(ls /sys/class/infiniband)" ]
	run -0 insmod "$KO"
	run -0 rdma link add rxe0 type rxe netdev eth0
	[ "$(port_state rxe0)" = "4: ACTIVE" ]
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	rdma link del rxe0 2>/dev/null || true
	rmmod rdma_rxe
	kernel_log_clean
}
