#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The bundled rdma_rxe on a lossy wire (issue 9): tc netem on both guests' eth0, guest a runs the
# bundled driver, guest b first the bundled one and then the stock one; every operation runs with
# each guest as the requester and its data is checked: SEND (ibv_rc_pingpong -c), RDMA READ and
# WRITE over RDMA CM (rping -V), atomics (tests/driver/rxe_atomics: every returned value and the
# final one), and `rxectl ping` (send/write/read, every byte). Each step prints a row with the
# retransmission counters of both sides ("# row ...", read by bench/netem-matrix).
# By default only the "all" case (1% loss, 5% reorder, 1% duplicate at once) runs;
# RXE_NETEM_CASES="loss reorder dup all" (bench/netem-matrix) runs every case.

bats_require_minimum_version 1.5.0
load ping_lib

# netem arguments of each case; 5% reorder = 5% go at once, the rest wait 2 ms
declare -A NETEM=(
	[loss]="loss 1%"
	[reorder]="delay 2ms reorder 5%"
	[dup]="duplicate 1%"
	[all]="delay 2ms reorder 5% loss 1% duplicate 1%"
)

setup_file() {
	[ -n "${VM_ROLE:-}" ] || skip "not in a pair of test bed guests"
	test_prog rxe_atomics
	export RXECTL_CONFIG="$BATS_FILE_TMPDIR/rxe.conf"
	: > "$RXECTL_CONFIG"
}

teardown() {
	pair_teardown	# a failure here fails the other guest's barriers at once, not in 10 min
}

teardown_file() {
	tc qdisc del dev eth0 root 2>/dev/null || true
	[ "${VM_ROLE:-}" ] && stop_listener
	"$RXECTL" down --all >/dev/null 2>&1 || true
	rmmod rdma_rxe 2>/dev/null || true
}

# use_driver bundled|stock: rxe_eth0 on eth0 with that rdma_rxe
use_driver() {
	"$RXECTL" down --all >/dev/null 2>&1 || true
	load_driver "$1"
	"$RXECTL" up eth0 --wait 20 >/dev/null
}

# rcounters: "completer_retry_err duplicate_request out_of_seq_request rcvd_seq_err" of rxe_eth0
rcounters() {
	rdma -j statistic show link rxe_eth0/1 | jq -r '.[0] |
		"\(.completer_retry_err // 0) \(.duplicate_request // 0) \(.out_of_seq_request // 0) \(.rcvd_seq_err // 0)"'
}

server_cmd() {	# server_cmd OP ID
	local g
	g=$(gid_index rxe_eth0)
	case $1 in
	send) timeout 300 ibv_rc_pingpong -d rxe_eth0 -g "$g" -n 100 -s 4096 -c ;;
	rping) timeout 300 rping -s -a "$VM_SELF_IP" -p 7200 -C 20 -S 16384 -V ;;
	atomics) timeout 300 "$BATS_FILE_TMPDIR/rxe_atomics" rxe_eth0 "$g" "$VM_PEER_IP" \
			"$VM_SHARED/$2" server 200 ;;
	ping)
		start_listener || return 1
		while [ ! -e "$VM_SHARED/$2-client-done" ]; do sleep 0.5; done
		stop_listener
		cat "$BATS_FILE_TMPDIR/listener.log" ;;
	esac
}

client_cmd() {	# client_cmd OP ID
	local g
	g=$(gid_index rxe_eth0)
	case $1 in
	send) timeout 300 ibv_rc_pingpong -d rxe_eth0 -g "$g" -n 100 -s 4096 -c "$VM_PEER_IP" ;;
	rping) timeout 300 rping -c -a "$VM_PEER_IP" -p 7200 -C 20 -S 16384 -V ;;
	atomics) timeout 300 "$BATS_FILE_TMPDIR/rxe_atomics" rxe_eth0 "$g" "$VM_PEER_IP" \
			"$VM_SHARED/$2" client 200 ;;
	ping) timeout 300 "$RXECTL" ping "$VM_PEER_IP" --sizes 1,4K,64K --count 3 --timeout 30 ;;
	esac
}

# step CASE PEER OP SERVER_ROLE: OP with its server on SERVER_ROLE's guest; the client is the
# requester of SEND (pingpong: both), of atomics and of `rxectl ping`; rping's server is the
# requester of READ and WRITE. Guest a prints the row; both fail the step when either failed.
step() {
	local cse=$1 peer=$2 op=$3 server=$4 id="$1-$2-$3-$4" rc before after t0
	mkdir -p "$VM_SHARED/$id"
	barrier "$id-start"
	before=$(rcounters)
	t0=$(date +%s.%N)
	if [ "$VM_ROLE" = "$server" ]; then
		rm -f "$BATS_FILE_TMPDIR/listener.log"
		server_cmd "$op" "$id" > "$BATS_FILE_TMPDIR/$id.out" 2>&1 &
		if [ "$op" = ping ]; then
			for _ in $(seq 300); do
				grep -q '^listening on' "$BATS_FILE_TMPDIR/listener.log" 2>/dev/null && break
				sleep 0.2
			done
		else
			sleep 2
		fi
		touch "$VM_SHARED/$id-listening"
		wait $!
		rc=$?
	else
		while [ ! -e "$VM_SHARED/$id-listening" ]; do sleep 0.2; done
		sleep 1
		client_cmd "$op" "$id" > "$BATS_FILE_TMPDIR/$id.out" 2>&1
		rc=$?
		touch "$VM_SHARED/$id-client-done"
	fi
	after=$(rcounters)
	echo "$rc $(awk -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f", t1 - t0 }') $before $after" \
		> "$VM_SHARED/$id/$VM_ROLE.res"
	barrier "$id-done"
	local ra rb
	read -r ra _ <"$VM_SHARED/$id/a.res"
	read -r rb _ <"$VM_SHARED/$id/b.res"
	if [ "$VM_ROLE" = a ]; then
		awk -v c="$cse" -v p="$peer" -v o="$op" -v s="$server" '
			FNR == 1 && NR == 1 { ra = $1; t = $2; for (i = 0; i < 4; i++) da[i] = $(7 + i) - $(3 + i) }
			FNR == 1 && NR == 2 { rb = $1; for (i = 0; i < 4; i++) db[i] = $(7 + i) - $(3 + i) }
			END {
				printf "# row %-7s bundled-%-7s %-7s requester=%s %-4s %ss  a: retry %d dup %d oos %d seqnak %d  b: retry %d dup %d oos %d seqnak %d\n",
					c, p, o, (o == "send" ? "both" : o == "rping" ? s : (s == "a" ? "b" : "a")),
					(ra == 0 && rb == 0 ? "pass" : "FAIL"), t,
					da[0], da[1], da[2], da[3], db[0], db[1], db[2], db[3]
			}' "$VM_SHARED/$id/a.res" "$VM_SHARED/$id/b.res" >&3
	fi
	if [ "$ra" != 0 ] || [ "$rb" != 0 ]; then
		echo "step $id failed (a: $ra, b: $rb); this guest's output:"
		tail -5 "$BATS_FILE_TMPDIR/$id.out"
		return 1
	fi
}

# matrix PEER: every case of RXE_NETEM_CASES (default "all") x every op, each guest requester
matrix() {
	local peer=$1 cse op srv failed=0
	barrier "$peer-driver-start"
	if [ "$VM_ROLE" = b ]; then use_driver "$peer"; else use_driver bundled; fi
	barrier "$peer-driver-up"
	for cse in ${RXE_NETEM_CASES:-all}; do
		# shellcheck disable=SC2086
		tc qdisc replace dev eth0 root netem ${NETEM[$cse]}
		for op in send rping atomics ping; do
			for srv in a b; do
				[ "$op" = send ] && [ "$srv" = b ] && continue	# pingpong: both send
				step "$cse" "$peer" "$op" "$srv" || failed=1
			done
		done
		tc qdisc del dev eth0 root
	done
	return "$failed"
}

@test "lossy wire, bundled <-> bundled: SEND, READ, WRITE, atomics, rxectl ping with checked data" {
	matrix bundled
}

@test "lossy wire, bundled <-> stock: SEND, READ, WRITE, atomics, rxectl ping with checked data" {
	matrix stock
}

# 1 MiB messages over a wire losing 2% each way: go-back-N resumes a SEND or WRITE at the first
# unacknowledged packet (resumed_mid_msg), not at the message's first, so the responder sees few
# duplicates. Before, every loss resent the message from its start: ib_send_bw 1 MiB -q 4 sent
# 4.7 M packets for 0.4 M (4.2 M duplicates at the responder) and failed with RETRY_EXC_ERR.
# `rxectl ping` checks every byte of each SEND, WRITE and READ.
@test "2% loss, 1 MiB SEND/WRITE/READ: a resend resumes inside the message (few duplicates), every byte checked" {
	local id=mid rc s0 s1 dup rcvd res
	barrier "$id-driver"
	use_driver bundled
	tc qdisc replace dev eth0 root netem loss 2%
	s0=$(rdma -j statistic show link rxe_eth0/1 | jq -c '.[0]')
	barrier "$id-start"
	if [ "$VM_ROLE" = a ]; then
		start_listener
		touch "$VM_SHARED/$id-listening"
		while [ ! -e "$VM_SHARED/$id-client-done" ]; do sleep 0.5; done
		stop_listener
		rc=0
	else
		while [ ! -e "$VM_SHARED/$id-listening" ]; do sleep 0.2; done
		run timeout 300 "$RXECTL" ping "$VM_PEER_IP" --sizes 1M --count 4 --timeout 60
		rc=$status
		echo "$output"
		touch "$VM_SHARED/$id-client-done"
	fi
	tc qdisc del dev eth0 root
	s1=$(rdma -j statistic show link rxe_eth0/1 | jq -c '.[0]')
	dup=$(counter_delta "$s0" "$s1" duplicate_request)
	rcvd=$(counter_delta "$s0" "$s1" rcvd_pkts)
	res=$(counter_delta "$s0" "$s1" resumed_mid_msg)
	echo "# $VM_ROLE: rcvd_pkts +$rcvd, duplicate_request +$dup, resumed_mid_msg +$res, completer_retry_err +$(counter_delta "$s0" "$s1" completer_retry_err)" >&3
	echo "$rcvd $dup $res" > "$VM_SHARED/$id-$VM_ROLE.res"
	barrier "$id-done"
	[ "$rc" = 0 ]
	if [ "$VM_ROLE" = a ]; then	# the responder of b's SENDs and WRITEs
		read -r rcvd dup _ < "$VM_SHARED/$id-a.res"
		read -r _ _ res < "$VM_SHARED/$id-b.res"
		[ "$rcvd" -ge 8000 ] && [ "$res" -ge 1 ] && [ $((dup * 10)) -lt "$rcvd" ]
	fi
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	kernel_log_clean
}
