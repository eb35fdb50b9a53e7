#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# A lost RDMA READ response is repaired at once, not after the ACK timeout (issue 10): guest b is
# the READ responder with `netem loss 2%` on its eth0, guest a the requester. rping -V (one 65000-byte
# READ at a time, read back and compared by the client) and ib_read_bw (many READs in flight) run
# bundled<->bundled, then stock<->stock as the reference. The losses are counted where they happen
# (b's sent_pkts minus a's received packets: netem's and the wire's). On the bundled requester a
# gap in the responses re-issues the READ (gap_retries > 0) once per loss, not once per response
# of the burst behind it (gap_retries <= 2 x losses), and retransmit timer expirations stay far
# below the losses (retry_timeouts x 4 < losses; every lossy READ timed out before the fix).
# Each of those repairs (and each sequence NAK acted on) cuts the requester's window: window_cuts
# grows by exactly gap_retries + retry_timeouts + rcvd_seq_err - seq_naks_ignored.
# The stock<->stock reference (~180 s of the file's ~360 s of guest time) runs only when asked,
# to keep make check in its budget:
#   RXE_READGAP_STOCK=1 tests/vm/vm-run --pair --dmesg-clean --env RXE_READGAP_STOCK -- \
#	bats tests/guest/pair/driver_readgap.bats

bats_require_minimum_version 1.5.0
load pair_lib

setup_file() {
	[ -n "${VM_ROLE:-}" ] || skip "not in a pair of test bed guests"
}

teardown() {
	pair_teardown	# a failure here fails the other guest's barriers at once, not in 10 min
}

teardown_file() {
	tc qdisc del dev eth0 root 2>/dev/null || true
	rxe0_down
}

# use_driver bundled|stock: rxe0 on eth0 with that rdma_rxe, no netem yet
use_driver() {
	tc qdisc del dev eth0 root 2>/dev/null || true
	rdma link del rxe0 2>/dev/null || true
	rxe0_up "$1"
}

# snap: "sent_pkts rcvd_pkts rcvd_dropped gap_retries retry_timeouts completer_retry_err
# window_cuts rcvd_seq_err seq_naks_ignored" of rxe0 (the bundled driver's own counters read 0 on stock)
snap() {
	rdma -j statistic show link rxe0/1 | jq -r '.[0] | [.sent_pkts, .rcvd_pkts, .rcvd_dropped // 0,
		.gap_retries // 0, .retry_timeouts // 0, .completer_retry_err, .window_cuts // 0,
		.rcvd_seq_err, .seq_naks_ignored // 0] | map(tostring) | join(" ")'
}

# rping_reads NAME: rping with its server (the READ requester) on a, 60 x 65000 bytes (64 packets at MTU 1024), data checked
rping_reads() {
	local name=$1
	barrier "$name-start"
	if [ "$VM_ROLE" = a ]; then
		timeout 400 rping -s -a "$VM_SELF_IP" -p 7210 -C 60 -S 65000 -V \
			> "$BATS_FILE_TMPDIR/$name.out" 2>&1 &
		sleep 2
		touch "$VM_SHARED/$name-listening"
		wait $!
	else
		while [ ! -e "$VM_SHARED/$name-listening" ]; do sleep 0.5; done
		sleep 1
		timeout 400 rping -c -a "$VM_PEER_IP" -p 7210 -C 60 -S 65000 -V \
			> "$BATS_FILE_TMPDIR/$name.out" 2>&1
	fi || return
	! grep -qi mismatch "$BATS_FILE_TMPDIR/$name.out"
}

# phase NAME DRIVER KIND: one lossy workload; both guests write their counter deltas, a prints a row
# and leaves "losses gap timeouts comp_retry rc_a rc_b window_cuts seq_naks ignored_naks" in
# $VM_SHARED/NAME.res
phase() {
	local name=$1 drv=$2 kind=$3 before after rc=0 d0 d1
	barrier "$name-ready"
	before=$(snap)
	d0=$(tc -s -j qdisc show dev eth0 | jq '.[0].drops // 0')
	case $kind in
	rping) rping_reads "$name" || rc=$? ;;
	read_bw) between "$name" b ib_read_bw -d rxe0 -x "$(gid_index)" -n 200 -s 65536 || rc=$? ;;
	esac
	after=$(snap)
	d1=$(tc -s -j qdisc show dev eth0 | jq '.[0].drops // 0')
	echo "$rc $before $after $((d1 - d0))" > "$VM_SHARED/$name.$VM_ROLE"
	[ "$rc" = 0 ] || { echo "$kind on $VM_ROLE exited $rc:"; tail -5 "$BATS_FILE_TMPDIR/$name.out" 2>/dev/null; }
	barrier "$name-done"
	[ "$VM_ROLE" = a ] || return "$rc"
	# fields: rc, 9 before, 9 after, netem drops
	awk -v n="$name" -v drv="$drv" -v k="$kind" '
		FNR == 1 && NR == 1 { ra = $1; arcvd = $12 - $3; adrop = $13 - $4; gap = $14 - $5
			to = $15 - $6; cr = $16 - $7; cuts = $17 - $8; seq = $18 - $9; ign = $19 - $10 }
		FNR == 1 && NR == 2 { rb = $1; bsent = $11 - $2; netem = $20 }
		END {
			loss = bsent - arcvd - adrop
			printf "# row %-7s %-7s rc a=%d b=%d  b->a lost %d (netem %d)  a: gap_retries %d retry_timeouts %d completer_retry_err %d window_cuts %d rcvd_seq_err %d (%d ignored)\n",
				drv, k, ra, rb, loss, netem, gap, to, cr, cuts, seq, ign
			print loss, gap, to, cr, ra, rb, cuts, seq, ign > (ENVIRON["VM_SHARED"] "/" n ".res")
		}' "$VM_SHARED/$name.a" "$VM_SHARED/$name.b" >&3
	return "$rc"
}

# lossy DRIVER: both guests on DRIVER, netem loss on b (the responder), rping then ib_read_bw
lossy() {
	barrier "$1-load"
	use_driver "$1"
	[ "$VM_ROLE" = a ] || tc qdisc replace dev eth0 root netem loss 2%
	barrier "$1-up"
	sleep 2		# the GID table and the neighbours
	local rc=0
	phase "$1-rping" "$1" rping || rc=1
	phase "$1-readbw" "$1" read_bw || rc=1
	tc qdisc del dev eth0 root 2>/dev/null || true
	return "$rc"
}

@test "2% loss on the READ responses, bundled <-> bundled: data right, gaps re-issued at once" {
	local loss gap to cr cuts seq ign name
	lossy bundled
	[ "$VM_ROLE" = a ] || return 0
	for name in rping readbw; do
		read -r loss gap to cr _ _ cuts seq ign < "$VM_SHARED/bundled-$name.res"
		[ "$cuts" -gt 0 ] && [ "$cuts" = $((gap + to + seq - ign)) ] ||
			{ echo "$name: window_cuts $cuts for $gap gap re-issues, $to timeouts, $seq sequence NAKs ($ign ignored as copies)"; return 1; }
	done
	read -r loss gap to cr _ < "$VM_SHARED/bundled-rping.res"
	[ "$loss" -gt 0 ] || { echo "no response was lost: the test proves nothing"; return 1; }
	[ "$gap" -gt 0 ] || { echo "rping: $loss responses lost but no gap re-issue"; return 1; }
	[ "$gap" -le $((2 * loss)) ] ||
		{ echo "rping: $gap re-issues for $loss losses: one per response of a burst?"; return 1; }
	[ $((4 * to)) -lt "$loss" ] ||
		{ echo "rping: $to timer expirations for $loss losses: the timer still repairs them"; return 1; }
	read -r loss gap to cr _ < "$VM_SHARED/bundled-readbw.res"
	[ "$loss" -gt 0 ] && [ "$gap" -gt 0 ] && [ "$gap" -le $((2 * loss)) ] ||
		{ echo "ib_read_bw: $loss lost, $gap re-issues"; return 1; }
}

@test "2% loss on the READ responses, stock <-> stock (reference): data right, retries counted" {
	local loss cr
	[ -n "${RXE_READGAP_STOCK:-}" ] || skip "the stock reference runs with RXE_READGAP_STOCK=1 (see the file's head)"
	lossy stock
	[ "$VM_ROLE" = a ] || return 0
	read -r loss _ _ cr _ < "$VM_SHARED/stock-rping.res"
	[ "$loss" -gt 0 ] && [ "$cr" -gt 0 ] || { echo "stock rping: $loss lost, $cr retries"; return 1; }
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	kernel_log_clean
}
