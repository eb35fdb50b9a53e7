#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The bundled rdma_rxe against a hostile or vanished peer. The victim (tests/driver/rxe_victim)
# runs on rxe1 over veth0 (198.51.100.1); the peer lives in the network namespace "peer" at the
# other end of the veth (198.51.100.2, and 198.51.100.3 as a third host) and is played by
# tests/driver/rxe_hostile.py: hand-made packets with valid ICRCs from a raw socket.
#   tests/run-all tests/guest/driver_hostile.bats

bats_require_minimum_version 1.5.0
load lib

TOOLS="$TOP/tests/driver"
SELF=198.51.100.1
PEER=198.51.100.2
THIRD=198.51.100.3

setup_file() {
	require_guest
	test_prog rxe_victim
	load_bundled_driver
	ip netns add peer
	ip link add veth0 type veth peer name veth1 netns peer
	ip addr add "$SELF/24" dev veth0
	ip link set veth0 up
	ip -n peer addr add "$PEER/24" dev veth1
	ip -n peer addr add "$THIRD/24" dev veth1
	ip -n peer link set veth1 up
	ip -n peer link set lo up
	rdma link add rxe1 type rxe netdev veth0
}

teardown_file() {
	rdma link del rxe1 2>/dev/null || true
	ip link del veth0 2>/dev/null || true
	ip netns del peer 2>/dev/null || true
	rmmod rdma_rxe 2>/dev/null || true
}

# The GID index of rxe1's RoCE v2 GID for $SELF.
self_gid() {
	local want i
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${SELF//./ })
	for i in $(seq 0 15); do
		[ "$(cat /sys/class/infiniband/rxe1/ports/1/gids/$i 2>/dev/null)" = "$want" ] &&
			{ echo "$i"; return; }
	done
	return 1
}

# attack MODE HOSTILE_ARGS...: rxe_victim MODE against rxe_hostile.py HOSTILE_ARGS in the peer
# namespace. The victim must exit within 30 s of the attack: one stuck in the kernel
# (D state) cannot be killed, so it is polled, and its kernel stack shown if it hangs.
attack() {
	local mode=$1 d="$BATS_TEST_TMPDIR/x" pid i vrc hrc
	shift
	mkdir -p "$d"
	"$BATS_FILE_TMPDIR/rxe_victim" rxe1 "$(self_gid)" "$PEER" "$d" "$mode" > "$d/victim.out" 2>&1 &
	pid=$!
	run timeout 120 ip netns exec peer python3 "$TOOLS/rxe_hostile.py" "$@" "$d/victim.info" "$d"
	hrc=$status
	echo "rxe_hostile.py: $output"
	for i in $(seq 60); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "rxe_victim $mode still runs 30 s after the attack; its kernel stack:"
		cat "/proc/$pid/stack" 2>/dev/null
		vrc=124
	else
		wait "$pid" && vrc=0 || vrc=$?
	fi
	echo "rxe_victim: $(cat "$d/victim.out")"
	VICTIM_OUT=$(cat "$d/victim.out")
	[ "$hrc" = 0 ] && [ "$vrc" = 0 ]
}

@test "a peer that sends WRITE_FIRST and vanishes cannot keep the victim's MR from deregistering" {
	attack dereg write-first "$PEER" "$SELF"
	[[ "$VICTIM_OUT" == "dereg_mr returned after 0."* ]]
}

@test "an ACK and a NAK from a third address neither complete nor fail the QP's SEND" {
	attack spoof spoof "$THIRD" "$PEER" "$SELF"
}

@test "the connected peer's ghost ACK and a flood of one sequence NAK: one resend at most, the SEND still completes" {
	local s0 s1 seq ign
	s0=$(rdma -j statistic show link rxe1/1 | jq -c '.[0]')
	attack spoof window "$PEER" "$SELF"
	s1=$(rdma -j statistic show link rxe1/1 | jq -c '.[0]')
	seq=$(counter_delta "$s0" "$s1" rcvd_seq_err) ign=$(counter_delta "$s0" "$s1" seq_naks_ignored)
	echo "# rcvd_seq_err +$seq, seq_naks_ignored +$ign" >&3
	[ "$seq" -ge 100 ] && [ $((seq - ign)) -ge 1 ] && [ $((seq - ign)) -le 3 ]
	[[ "$VICTIM_OUT" == "spoofed ACK/NAK ignored; the peer's ACK completed the SEND" ]]
}

# A peer still answering, with nothing new, is waited for: its READ response may be queued behind
# a stream the requester's retries would only lengthen. 16 timeouts in a row at most, then the
# retries run as before (67 ms each here), so old answers cannot hold a QP forever.
@test "old ACKs from the peer: a READ waits (no re-issue) and completes; with no answer, 16 waits then retry_cnt re-issues and RETRY_EXC_ERR" {
	local s0 s1 def tmo exc t2
	s0=$(rdma -j statistic show link rxe1/1 | jq -c '.[0]')
	attack stale stale "$PEER" "$SELF"
	s1=$(rdma -j statistic show link rxe1/1 | jq -c '.[0]')
	def=$(counter_delta "$s0" "$s1" timeouts_deferred)
	tmo=$(counter_delta "$s0" "$s1" retry_timeouts)
	exc=$(counter_delta "$s0" "$s1" retry_exceeded_err)
	echo "# $VICTIM_OUT; timeouts_deferred +$def, retry_timeouts +$tmo, retry_exceeded_err +$exc" >&3
	[[ "$VICTIM_OUT" == *"READ 1: success after "* ]]
	t2=$(sed -n 's/^READ 2: transport retry counter exceeded after \([0-9.]*\) s$/\1/p' <<< "$VICTIM_OUT")
	# 16 waits and 3 timeouts of 67 ms: ~1.3 s; at once (0.2 s) before; 3 s if unbounded
	awk -v t="$t2" 'BEGIN { exit !(t >= 1.0 && t < 2.8) }'
	[ "$def" -ge 17 ] && [ "$def" -le 30 ] && [ "$tmo" -eq 2 ] && [ "$exc" -eq 1 ]
}

@test "old-PSN READs: only the recorded one is replayed; rkey guessing ends at the first bad rkey" {
	attack state read "$PEER" "$SELF"
	[ "$VICTIM_OUT" = "state ERR" ]
}

@test "UC: a message with a lost or reordered packet, or a lone MIDDLE/LAST, is dropped silently; whole messages land" {
	attack uc uc "$PEER" "$SELF"
	[[ "$VICTIM_OUT" == *"3 broken ones were dropped; state RTS" ]]
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	run dmesg
	! grep -E 'WARNING|BUG|Oops|refcount|lockdep|circular locking|general protection|hung_task' <<<"$output"
}
