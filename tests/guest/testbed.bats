#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The VM test bed itself: the guest runs the stock kernel with a real rdma_rxe.

@test "the guest is a VM test bed guest with its link up" {
	[ "$RXE_VM" = 1 ]
	ip -br addr show dev "$VM_NETDEV" | grep -q "$VM_SELF_IP/24"
}

@test "the stock kernel's rdma_rxe loads and gives an ACTIVE device" {
	modprobe rdma_rxe
	rdma link add testbed0 type rxe netdev "$VM_NETDEV"
	run rdma -j link show testbed0/1
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.[0].state')" = ACTIVE ]
	rdma link delete testbed0
}

@test "the guest root file system is writable (a tmpfs overlay over the host root)" {
	touch /etc/rxevm-write-probe
	[ -f /etc/rxevm-write-probe ]
}
