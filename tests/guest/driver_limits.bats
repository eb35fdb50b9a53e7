#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The bundled rdma_rxe holds an unprivileged user with a uverbs node to the limits query_device
# reports: creating one more PD, CQ or SRQ fails with ENOMEM/EINVAL (tests/driver/rxe_limits;
# its qp mode is not run here: 65536 QPs, several KiB of kernel memory each, do not fit a 1 GiB
# TCG guest);
# in a memory cgroup with a small memory.max, the largest CQs fail with ENOMEM in that process
# (their rings are charged to the cgroup); a QP's responder resources (max_dest_rd_atomic
# records) are charged to the cgroup of the process that moves it to RTR; and nothing is
# OOM-killed.
#   tests/run-all tests/guest/driver_limits.bats

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
	test_prog rxe_limits /tmp
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

# in_memcg MAX ARGS...: rxe_limits rxe0 ARGS... as nobody in a cgroup v2 with memory.max MAX.
in_memcg() {
	local cg=/sys/fs/cgroup max=$1
	shift
	mountpoint -q "$cg" || mount -t cgroup2 none "$cg"
	grep -qw memory "$cg/cgroup.subtree_control" || echo +memory > "$cg/cgroup.subtree_control"
	mkdir -p "$cg/rxe-limits"
	echo "$max" > "$cg/rxe-limits/memory.max"
	run timeout 300 sh -c 'echo $$ > /sys/fs/cgroup/rxe-limits/cgroup.procs &&
		exec setpriv --reuid=65534 --regid=65534 --clear-groups /tmp/rxe_limits rxe0 "$@"' \
		sh "$@"
	memcg_output=$output	# the run of dmesg below replaces $output
	echo "$output"
	echo "memory.events: $(tr '\n' ' ' < "$cg/rxe-limits/memory.events")"
	rmdir "$cg/rxe-limits"
	[ "$status" = 0 ]
	run dmesg
	! grep -E 'oom-kill|Out of memory|Killed process' <<<"$output"
}

@test "in a memory cgroup of 32 MiB, the largest CQs fail with ENOMEM and nothing is OOM-killed" {
	in_memcg 32M big-cq 64
}

# 128 records of a READ/atomic each are ~5 KiB a QP: allocated at RTR in the caller's cgroup,
# not in struct rxe_qp (which the RDMA core allocates uncharged).
@test "a QP's responder resources are charged to the memory cgroup of who moves it to RTR" {
	in_memcg max rd-res 1000 128
	big=$(sed -n 's/^charged \(-\{0,1\}[0-9]*\) bytes per QP.*/\1/p' <<<"$memcg_output")
	in_memcg max rd-res 1000 1
	small=$(sed -n 's/^charged \(-\{0,1\}[0-9]*\) bytes per QP.*/\1/p' <<<"$memcg_output")
	echo "# max_dest_rd_atomic 128: $big bytes a QP, 1: $small" >&3
	[ "$((big - small))" -ge 4000 ]
}

@test "the kernel log has no WARNING, BUG, Oops, refcount, lockdep or OOM message" {
	run dmesg
	! grep -E 'WARNING|BUG|Oops|refcount|lockdep|circular locking|general protection|Out of memory|oom-kill' <<<"$output"
}
