#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The bundled rdma_rxe holds an unprivileged user with a uverbs node to the limits query_device
# reports: creating one more PD, CQ or SRQ fails with ENOMEM/EINVAL (driver/tools/rxe_limits;
# its qp mode is not run here: 65536 QPs, ~11 KiB of kernel memory each, do not fit a 1 GiB
# TCG guest);
# in a memory cgroup with a small memory.max, the largest CQs fail with ENOMEM in that process
# (their rings are charged to the cgroup); and nothing is OOM-killed.
#   tests/run-all tests/guest/driver_limits.bats

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
	gcc -O2 -Wall -o /tmp/rxe_limits "$BATS_TEST_DIRNAME/../../driver/tools/rxe_limits.c" -libverbs
	chmod 755 /tmp/rxe_limits
	load_bundled_driver
	rdma link add rxe0 type rxe netdev eth0
	chmod a+rw /dev/infiniband/uverbs*
}

teardown_file() {
	rdma link del rxe0 2>/dev/null || true
	rmmod rdma_rxe 2>/dev/null || true
	rm -f /tmp/rxe_limits
}

as_nobody() {
	run timeout 300 setpriv --reuid=65534 --regid=65534 --clear-groups /tmp/rxe_limits rxe0 "$1"
	echo "$output"
	[ "$status" = 0 ]
}

@test "an unprivileged user gets ENOMEM at the device's PD limit" {
	as_nobody pd
}

@test "an unprivileged user gets ENOMEM at the device's CQ limit" {
	as_nobody cq
}

@test "an unprivileged user gets ENOMEM at the device's SRQ limit" {
	as_nobody srq
}

# in_small_memcg KIND: rxe_limits big-KIND 64 as nobody in a cgroup v2 with memory.max 32 MiB.
in_small_memcg() {
	local cg=/sys/fs/cgroup
	mountpoint -q "$cg" || mount -t cgroup2 none "$cg"
	grep -qw memory "$cg/cgroup.subtree_control" || echo +memory > "$cg/cgroup.subtree_control"
	mkdir -p "$cg/rxe-limits"
	echo 32M > "$cg/rxe-limits/memory.max"
	run timeout 300 sh -c 'echo $$ > /sys/fs/cgroup/rxe-limits/cgroup.procs &&
		exec setpriv --reuid=65534 --regid=65534 --clear-groups /tmp/rxe_limits rxe0 "$1" 64' \
		sh "big-$1"
	echo "$output"
	echo "memory.events: $(tr '\n' ' ' < "$cg/rxe-limits/memory.events")"
	rmdir "$cg/rxe-limits"
	[ "$status" = 0 ]
	run dmesg
	! grep -E 'oom-kill|Out of memory|Killed process' <<<"$output"
}

@test "in a memory cgroup of 32 MiB, the largest CQs fail with ENOMEM and nothing is OOM-killed" {
	in_small_memcg cq
}

@test "the kernel log has no WARNING, BUG, Oops, refcount, lockdep or OOM message" {
	run dmesg
	! grep -E 'WARNING|BUG|Oops|refcount|lockdep|circular locking|general protection|Out of memory|oom-kill' <<<"$output"
}
