#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The paired test bed: two guests on one wire, each with its own address.

@test "the peer answers on the guest-to-guest wire" {
	ping -c 1 -W 30 "$VM_PEER_IP"
}

@test "both guests share the coordination directory" {
	touch "$VM_SHARED/here-$VM_ROLE"
	for _ in $(seq 60); do [ -e "$VM_SHARED/here-a" ] && [ -e "$VM_SHARED/here-b" ] && break; sleep 1; done
	[ -e "$VM_SHARED/here-a" ] && [ -e "$VM_SHARED/here-b" ]
}
