#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The bundled rdma_rxe on a VLAN, against the stock one: both guests put eth0.10 (VLAN 10) on
# the wire with their own address; guest a runs rxe0 of the bundled driver and guest b rxe0 of
# the stock driver, each on eth0 (rxe goes on the real device: stock refuses a VLAN device with
# EPERM, the bundled one with EINVAL; the RDMA core gives rxe0 a GID for each address of eth0's
# VLAN devices, whose ndev is eth0.10), and ibv_rc_pingpong with checked data runs over the VLAN
# GIDs in both directions. The VLAN devices' own packet counters prove the RoCE traffic went
# tagged.
#   tests/run-all tests/guest/pair/driver_vlan.bats

bats_require_minimum_version 1.5.0
load pair_lib

setup_file() {
	[ -n "${VM_ROLE:-}" ] || skip "not in a pair of test bed guests"
	local me=1
	[ "$VM_ROLE" = b ] && me=2
	ip link add link eth0 name eth0.10 type vlan id 10
	ip addr add "198.18.10.$me/24" dev eth0.10
	ip link set eth0.10 up
	rxe0_up "$(interop_driver)"
	for _ in $(seq 50); do vlan_gid > /dev/null && break; sleep 0.2; done	# the core adds GIDs async
	barrier loaded
}

teardown() {
	pair_teardown	# a failure here fails the other guest's barriers at once, not in 10 min
}

teardown_file() {
	rxe0_down
	ip link del eth0.10 2>/dev/null || true
}

# The GID index of this guest's VLAN address on rxe0.
vlan_gid() {
	local me=1 want i
	[ "$VM_ROLE" = b ] && me=2
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' 198 18 10 "$me")
	for i in $(seq 0 15); do
		[ "$(cat "/sys/class/infiniband/rxe0/ports/1/gids/$i" 2>/dev/null)" = "$want" ] &&
			{ echo "$i"; return; }
	done
	return 1
}

# vlan_packets: packets received plus sent on eth0.10.
vlan_packets() {
	echo $(($(cat /sys/class/net/eth0.10/statistics/rx_packets) +
		$(cat /sys/class/net/eth0.10/statistics/tx_packets)))
}

# The client of `between` reaches the server's VLAN address.
PEER_ADDR=198.18.10.$([ "${VM_ROLE:-}" = a ] && echo 2 || echo 1)

# vlan_pingpong NAME SERVER_ROLE: a checked ibv_rc_pingpong over the VLAN GIDs, 50 round trips of
# 64 KiB in 1 KiB packets: thousands of tagged frames on eth0.10, not a handful.
vlan_pingpong() {
	local before
	before=$(vlan_packets)
	between "$1" "$2" ibv_rc_pingpong -d rxe0 -g "$(vlan_gid)" -n 50 -s 65536 -c
	echo "eth0.10 packets: $before -> $(vlan_packets)"
	[ $(($(vlan_packets) - before)) -gt 3000 ]
}

@test "guest a runs the bundled rdma_rxe and guest b the stock one, with a GID on eth0.10" {
	if [ "$VM_ROLE" = a ]; then
		[[ "$(cat /sys/module/rdma_rxe/version)" == rxectl-bundled-* ]]
	else
		[[ "$(cat /sys/module/rdma_rxe/version 2>/dev/null)" != rxectl-bundled-* ]]
	fi
	[ "$(cat "/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/$(vlan_gid)")" = eth0.10 ]
}

@test "ibv_rc_pingpong over the VLAN GIDs: bundled client, stock server" {
	vlan_pingpong vl1 b
}

@test "ibv_rc_pingpong over the VLAN GIDs: stock client, bundled server" {
	vlan_pingpong vl2 a
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	kernel_log_clean
}
