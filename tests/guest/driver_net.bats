#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Addressing of the bundled rdma_rxe beyond one plain netdev: a GID on a VLAN device sends on
# that VLAN and the VLAN's packets are received (the peer, played by tests/driver/rxe_hostile.py,
# sits in the network namespace "peer" at the other end of a veth, on VLAN 10), and IPv6
# loopback reaches the rxe device of every local address, not only the sender's own netdev.
#   tests/run-all tests/guest/driver_net.bats

bats_require_minimum_version 1.5.0
load lib

TOOLS="$TOP/tests/driver"

setup_file() {
	require_guest
	test_prog rxe_victim
	load_bundled_driver
	modprobe 8021q
	ip netns add peer
	ip link add veth0 type veth peer name veth1 netns peer
	ip link set veth0 up
	ip link add link veth0 name veth0.10 type vlan id 10
	ip addr add 203.0.113.1/24 dev veth0.10
	ip link set veth0.10 up
	ip -n peer link set veth1 up
	ip -n peer link add link veth1 name veth1.10 type vlan id 10
	ip -n peer addr add 203.0.113.2/24 dev veth1.10
	ip -n peer link set veth1.10 up
	ip link add veth2 type veth peer name veth3
	ip link set veth2 up
	ip link set veth3 up
	ip addr add fd00:1::1/64 dev veth0 nodad
	ip addr add fd00:2::1/64 dev veth2 nodad
	rdma link add rxe1 type rxe netdev veth0
	rdma link add rxe2 type rxe netdev veth2
}

teardown_file() {
	rdma link del rxe1 2>/dev/null || true
	rdma link del rxe2 2>/dev/null || true
	ip link del veth0 2>/dev/null || true
	ip link del veth2 2>/dev/null || true
	ip netns del peer 2>/dev/null || true
	rmmod rdma_rxe 2>/dev/null || true
}

# gid_of DEV GID: the index of the RoCE v2 GID (sysfs spelling) in DEV's table, waiting up to
# 10 s for the GID cache to pick up a new address.
gid_of() {
	local dev=$1 want=$2 i t
	for t in $(seq 20); do
		for i in $(seq 0 31); do
			[ "$(cat "/sys/class/infiniband/$dev/ports/1/gids/$i" 2>/dev/null)" = "$want" ] ||
				continue
			[ "$(cat "/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] &&
				{ echo "$i"; return; }
		done
		sleep 0.5
	done
	echo "no RoCE v2 GID $want on $dev" >&2
	return 1
}

@test "a GID of a VLAN device sends on the VLAN and receives from it (READs answered over VLAN 10)" {
	local d="$BATS_TEST_TMPDIR/x" idx pid
	mkdir -p "$d"
	idx=$(gid_of rxe1 0000:0000:0000:0000:0000:ffff:cb00:7101)
	"$BATS_FILE_TMPDIR/rxe_victim" rxe1 "$idx" 203.0.113.2 "$d" state > "$d/victim.out" 2>&1 &
	pid=$!
	run timeout 120 ip netns exec peer python3 "$TOOLS/rxe_hostile.py" read 203.0.113.2 \
		203.0.113.1 "$d/victim.info" "$d"
	echo "$output"
	wait "$pid"
	cat "$d/victim.out"
	[ "$status" = 0 ]
}

@test "IPv6 loopback reaches the rxe device of another local address (rxe1 <-> rxe2)" {
	local g1 g2 srv
	g1=$(gid_of rxe1 fd00:0001:0000:0000:0000:0000:0000:0001)
	g2=$(gid_of rxe2 fd00:0002:0000:0000:0000:0000:0000:0001)
	ibv_rc_pingpong -d rxe2 -g "$g2" -n 20 -s 8192 -c > "$BATS_TEST_TMPDIR/srv.out" 2>&1 &
	srv=$!
	sleep 1
	run timeout 60 ibv_rc_pingpong -d rxe1 -g "$g1" -n 20 -s 8192 -c 127.0.0.1
	echo "$output"
	wait "$srv"
	[ "$status" = 0 ]
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	kernel_log_clean
}
