#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Loopback direct placement of the bundled rdma_rxe (issue 10): RC messages between two user QPs
# of this host are carried out as copies, no packets; whenever a precondition does not hold they
# go as packets, and the data and completions are the same either way. tests/driver/rxe_verify
# checks every byte and completion (two RC QPs on rxe0, looped back); the counters say which
# path each WQE took: loopback_placed, loopback_fallback, sent_pkts.
#   tests/vm/vm-run -- bats tests/guest/driver_place.bats

bats_require_minimum_version 1.5.0
load lib

PARAM=/sys/module/rdma_rxe/parameters/loopback_place

setup_file() {
	setup_bundled_rxe0
}

teardown_file() {
	teardown_bundled_rxe0
}

setup() {
	echo 1 > "$PARAM"
}

verify() {	# verify MODE...: each rxe_verify mode must pass
	local m idx
	idx=$(gid_index)
	for m in "$@"; do
		run -0 timeout 60 "$BATS_FILE_TMPDIR/rxe_verify" rxe0 "$idx" "$m"
		[ "$output" = "ok $m" ] || { echo "$m: $output"; return 1; }
	done
}

report() {	# report BEFORE AFTER: the path counters' deltas, to the test's log
	local n line=""
	for n in loopback_placed loopback_fallback sent_pkts rdma_sends rdma_recvs; do
		line+=" $n +$(counter_delta "$1" "$2" $n)"
	done
	echo "#$line" >&3
}

DATA_MODES=(write-read send-sge-imm inline write-imm atomics)

@test "placement is on by default, and the counters loopback_placed and loopback_fallback exist" {
	[ "$(cat "$PARAM")" = Y ]
	rxe0_counters | jq -e 'has("loopback_placed") and has("loopback_fallback")'
}

@test "placed: WRITE and READ of 1 byte to 512 KiB, SEND with immediate (3 SGEs into 2), inline SEND, WRITE with immediate, atomics: byte for byte, not one packet" {
	local a b
	a=$(rxe0_counters)
	verify "${DATA_MODES[@]}"
	b=$(rxe0_counters)
	report "$a" "$b"
	# write-read: 8 sizes, a WRITE and a READ each; 2 SENDs; 1 WRITE with immediate; 3 atomics
	[ "$(counter_delta "$a" "$b" loopback_placed)" -eq 22 ]
	[ "$(counter_delta "$a" "$b" loopback_fallback)" -eq 0 ]
	[ "$(counter_delta "$a" "$b" sent_pkts)" -eq 0 ]
	[ "$(counter_delta "$a" "$b" rdma_sends)" -eq 2 ]
	[ "$(counter_delta "$a" "$b" rdma_recvs)" -eq 2 ]
}

@test "loopback_place=0: the same messages as packets, byte for byte, nothing placed" {
	local a b
	echo 0 > "$PARAM"
	a=$(rxe0_counters)
	verify "${DATA_MODES[@]}" fallback-mixed
	b=$(rxe0_counters)
	report "$a" "$b"
	[ "$(counter_delta "$a" "$b" loopback_placed)" -eq 0 ]
	[ "$(counter_delta "$a" "$b" loopback_fallback)" -eq 0 ]
	[ "$(counter_delta "$a" "$b" sent_pkts)" -gt 5000 ]
	[ "$(counter_delta "$a" "$b" rdma_sends)" -eq 4 ]
}

@test "a WRITE over the 4 MiB limit goes as packets, half received when the SEND, WRITE, READ and fetch-and-add behind it come up; they and the same four again take either path: data and completions in order" {
	local a b
	a=$(rxe0_counters)
	verify fallback-mixed
	b=$(rxe0_counters)
	report "$a" "$b"
	# round 1: the 5 MiB WRITE and the four behind it (each falls back while the peer has not
	# taken all of the WRITE's packets yet, and is placed once it has: the WRITE is then
	# acknowledged without its ACK); round 2: the four alone. Each WQE is counted once.
	[ "$(( $(counter_delta "$a" "$b" loopback_placed) + $(counter_delta "$a" "$b" loopback_fallback) ))" -eq 9 ]
	[ "$(counter_delta "$a" "$b" loopback_fallback)" -ge 1 ]
	[ "$(counter_delta "$a" "$b" loopback_placed)" -ge 4 ]
	[ "$(counter_delta "$a" "$b" sent_pkts)" -gt 5000 ]	# 5 MiB at a 1024-byte path MTU
}

@test "remote access, local protection and length errors fall back: the completions the packets give" {
	local a b
	a=$(rxe0_counters)
	verify bad-rkey out-of-range bad-lkey recv-too-small
	b=$(rxe0_counters)
	report "$a" "$b"
	[ "$(counter_delta "$a" "$b" loopback_placed)" -eq 0 ]
	[ "$(counter_delta "$a" "$b" loopback_fallback)" -eq 4 ]
}

@test "RNR on the target: the SEND falls back and is RNR NAKed until the receive is posted, then placed intact" {
	local a b
	a=$(rxe0_counters)
	verify rnr-retry
	b=$(rxe0_counters)
	report "$a" "$b"
	# every attempt falls back and is NAKed, but the last, which is placed (or, if the receive
	# came between its check and its packet, the last fallback is taken by the packets)
	[ "$(counter_delta "$a" "$b" send_rnr_err)" -ge 1 ]
	[ "$(( $(counter_delta "$a" "$b" loopback_placed) + $(counter_delta "$a" "$b" loopback_fallback) ))" -eq $(( $(counter_delta "$a" "$b" send_rnr_err) + 1 )) ]
	[ "$(counter_delta "$a" "$b" rdma_recvs)" -eq 1 ]
}

@test "the peer QP moved to the error state mid-transfer (a SEND in RNR retries): retry exceeded, the WRITE behind flushed, nothing placed into it" {
	local a b
	a=$(rxe0_counters)
	verify peer-error
	b=$(rxe0_counters)
	report "$a" "$b"
	[ "$(counter_delta "$a" "$b" retry_exceeded_err)" -eq 1 ]
	[ "$(counter_delta "$a" "$b" loopback_placed)" -eq 1 ]	# the 1000-byte WRITE before the move
}

# A QP of another PD aimed at a victim QP (whose path leads elsewhere) with the PSN and rkey the
# victim's peer would use: never placed (the victim's path must lead back to the sender), so it
# meets exactly what packets meet (RC packets name no source QP: stock rxe takes such a WRITE
# too). The outcome with placement on and off must be the same line.
@test "an intruder QP aimed at a victim QP of this host is never placed: the same outcome as with packets" {
	local a b on off idx
	idx=$(gid_index)
	a=$(rxe0_counters)
	run -0 timeout 60 "$BATS_FILE_TMPDIR/rxe_verify" rxe0 "$idx" intruder
	[ "${lines[1]}" = "ok intruder" ]
	on=${lines[0]}
	b=$(rxe0_counters)
	report "$a" "$b"
	echo "# placement on:  $on" >&3
	[ "$(counter_delta "$a" "$b" loopback_placed)" -eq 0 ]
	[ "$(counter_delta "$a" "$b" loopback_fallback)" -ge 1 ]
	echo 0 > "$PARAM"
	run -0 timeout 60 "$BATS_FILE_TMPDIR/rxe_verify" rxe0 "$idx" intruder
	[ "${lines[1]}" = "ok intruder" ]
	off=${lines[0]}
	echo "# placement off: $off" >&3
	[[ "$on" == "intruder: "* ]]
	[ "$on" = "$off" ]
}

@test "ibv_rc_pingpong, 300 SENDs each way between two processes: placed, rdma_sends and rdma_recvs +600" {
	local g a b n=300
	g=$(gid_index)
	a=$(rxe0_counters)
	ibv_rc_pingpong -d rxe0 -g "$g" -s 4096 -n $n -c >/dev/null 2>&1 &
	sleep 1
	run -0 timeout 120 ibv_rc_pingpong -d rxe0 -g "$g" -s 4096 -n $n -c 127.0.0.1
	wait
	b=$(rxe0_counters)
	report "$a" "$b"
	[ "$(counter_delta "$a" "$b" rdma_sends)" -eq $((2 * n)) ]
	[ "$(counter_delta "$a" "$b" rdma_recvs)" -eq $((2 * n)) ]
	# each SEND is placed, or falls back when the peer's lock is busy at that moment
	[ "$(( $(counter_delta "$a" "$b" loopback_placed) + $(counter_delta "$a" "$b" loopback_fallback) ))" -ge $((2 * n)) ]
	[ "$(counter_delta "$a" "$b" loopback_placed)" -ge "$n" ]
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	kernel_log_clean
}
