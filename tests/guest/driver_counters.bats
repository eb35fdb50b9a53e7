#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Hardware counters of the bundled rdma_rxe (issue 10): `rdma statistic show link rxe0/1` has the
# stock driver's counter names plus the driver's own, and known traffic moves each counter by
# exactly what it did. One guest, QPs looped back on one device, as packets: loopback direct
# placement (no packets; driver_place.bats counts it) is off for this file.
#   tests/vm/vm-run -- bats tests/guest/driver_counters.bats

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	setup_bundled_rxe0
	echo 0 > /sys/module/rdma_rxe/parameters/loopback_place
}

teardown_file() {
	teardown_bundled_rxe0
}

@test "rdma statistic lists every stock rdma_rxe counter name and the driver's own" {
	local s n
	s=$(rxe0_counters)
	for n in sent_pkts rcvd_pkts duplicate_request out_of_seq_request rcvd_rnr_err \
		send_rnr_err rcvd_seq_err ack_deferred retry_exceeded_err retry_rnr_exceeded_err \
		completer_retry_err send_err link_downed rdma_sends rdma_recvs \
		loopback_pkts retry_timeouts rcvd_dropped worker_runs inline_runs loopback_inline \
		run_handoffs gap_retries route_lookups rcvd_paged loopback_placed loopback_fallback sent_paged softirq_runs window_cuts \
		seq_naks_ignored acks_coalesced rx_batches timeouts_deferred resumed_mid_msg; do
		jq -e --arg n "$n" 'has($n) and (.[$n] | type == "number")' <<<"$s" >/dev/null ||
			{ echo "no counter $n in: $s"; return 1; }
	done
}

@test "30 SENDs each way: rdma_sends and rdma_recvs +60, every packet sent is looped back and received" {
	local g a b
	g=$(gid_index)
	a=$(rxe0_counters)
	ibv_rc_pingpong -d rxe0 -g "$g" -s 512 -n 30 >/dev/null 2>&1 &
	sleep 1
	run -0 timeout 60 ibv_rc_pingpong -d rxe0 -g "$g" -s 512 -n 30 127.0.0.1
	wait
	b=$(rxe0_counters)
	echo "# $(jq -c '{sent_pkts, rcvd_pkts, loopback_pkts, ack_deferred, worker_runs}' <<<"$b")" >&3
	[ "$(counter_delta "$a" "$b" rdma_sends)" -eq 60 ]
	[ "$(counter_delta "$a" "$b" rdma_recvs)" -eq 60 ]
	# each 512-byte SEND is one packet with an ACK request: at least 60 requests and 60 ACKs
	[ "$(counter_delta "$a" "$b" sent_pkts)" -ge 120 ]
	[ "$(counter_delta "$a" "$b" sent_pkts)" -eq "$(counter_delta "$a" "$b" rcvd_pkts)" ]
	[ "$(counter_delta "$a" "$b" sent_pkts)" -eq "$(counter_delta "$a" "$b" loopback_pkts)" ]
	# ack_deferred: responses (the 60 ACKs) that did not run their QP right away (handed to
	# the run holding it, or to the worker); requests never count
	[ "$(counter_delta "$a" "$b" ack_deferred)" -le 60 ]
	[ "$(counter_delta "$a" "$b" ack_deferred)" -ge 1 ]
	for n in send_err rcvd_dropped completer_retry_err rcvd_seq_err duplicate_request; do
		[ "$(counter_delta "$a" "$b" "$n")" -eq 0 ] || { echo "$n moved"; return 1; }
	done
}

@test "500 SENDs each way run in the callers' context: inline runs, few worker runs" {
	# ibv_rc_pingpong's QPs are user QPs: each doorbell runs the requester in the poster's
	# system call, and each looped-back packet runs its target QP in the sender's context (or
	# is handed to the run that holds it). The workqueue only takes what a run leaves over
	# (before, every doorbell and every looped-back packet queued the work item).
	local g a b n=500
	g=$(gid_index)
	a=$(rxe0_counters)
	ibv_rc_pingpong -d rxe0 -g "$g" -s 512 -n $n >/dev/null 2>&1 &
	sleep 1
	run -0 timeout 120 ibv_rc_pingpong -d rxe0 -g "$g" -s 512 -n $n 127.0.0.1
	wait
	b=$(rxe0_counters)
	echo "# $(jq -c '{sent_pkts, loopback_pkts, ack_deferred, worker_runs, inline_runs, loopback_inline, run_handoffs}' <<<"$b")" >&3
	echo "# delta: worker_runs $(counter_delta "$a" "$b" worker_runs) inline_runs $(counter_delta "$a" "$b" inline_runs) loopback_inline $(counter_delta "$a" "$b" loopback_inline) run_handoffs $(counter_delta "$a" "$b" run_handoffs) sent_pkts $(counter_delta "$a" "$b" sent_pkts)" >&3
	[ "$(counter_delta "$a" "$b" rdma_sends)" -eq $((2 * n)) ]
	[ "$(counter_delta "$a" "$b" rdma_recvs)" -eq $((2 * n)) ]
	# one doorbell per SEND at least: every one ran inline or was handed to a running holder
	[ "$(( $(counter_delta "$a" "$b" inline_runs) + $(counter_delta "$a" "$b" run_handoffs) ))" -ge $((2 * n)) ]
	# most of the 2n SENDs were taken by their receiver in the sender's context
	[ "$(counter_delta "$a" "$b" loopback_inline)" -ge "$n" ]
	[ "$(counter_delta "$a" "$b" worker_runs)" -le $((n / 5)) ]
}

@test "a connected QP looks its path up once, not per packet; an address change makes it look again" {
	# route_lookups counts each time a send found out whether its destination is local and,
	# for the wire, its route. RC QPs keep the answer until the namespace's routing generation
	# moves (any address or route change) or modify_qp changes their path.
	local g a b m pid n=1500	# ~10 s under TCG: it must outlast the first 3 s (checked below)
	g=$(gid_index)
	a=$(rxe0_counters)
	ibv_rc_pingpong -d rxe0 -g "$g" -s 64 -n $n >/dev/null 2>&1 &
	sleep 1
	timeout 300 ibv_rc_pingpong -d rxe0 -g "$g" -s 64 -n $n 127.0.0.1 >/dev/null 2>&1 &
	pid=$!
	sleep 2
	m=$(rxe0_counters)
	# an address comes and goes while the QPs send: the routing generation moves
	ip addr add 198.51.100.77/32 dev eth0
	kill -0 "$pid" || { echo "the pingpong ended before the address change: raise n"; return 1; }
	ip addr del 198.51.100.77/32 dev eth0
	wait "$pid"
	wait
	b=$(rxe0_counters)
	echo "# route_lookups: $(counter_delta "$a" "$m" route_lookups) in the first 2 s ($(counter_delta "$a" "$m" sent_pkts) packets), $(counter_delta "$a" "$b" route_lookups) in all ($(counter_delta "$a" "$b" sent_pkts) packets)" >&3
	[ "$(counter_delta "$a" "$b" rdma_sends)" -eq $((2 * n)) ]
	[ "$(counter_delta "$a" "$m" sent_pkts)" -ge 100 ]
	# two QPs: a lookup each at their first packet (a jiffy's grace of the cache's reset aside)
	[ "$(counter_delta "$a" "$m" route_lookups)" -ge 2 ]
	[ "$(counter_delta "$a" "$m" route_lookups)" -le 8 ]
	# the change made both look again, once each per generation (add, delete), not per packet
	[ "$(counter_delta "$m" "$b" route_lookups)" -ge 2 ]
	[ "$(counter_delta "$m" "$b" route_lookups)" -le 16 ]
}

@test "RNR retry exceeded (rnr_retry 2): 3 RNR NAKs sent and received, 1 retry_rnr_exceeded_err" {
	local a b
	a=$(rxe0_counters)
	run -0 timeout 60 "$BATS_FILE_TMPDIR/rxe_verify" rxe0 "$(gid_index)" rnr-timed
	b=$(rxe0_counters)
	[ "$(counter_delta "$a" "$b" send_rnr_err)" -eq 3 ]
	[ "$(counter_delta "$a" "$b" rcvd_rnr_err)" -eq 3 ]
	[ "$(counter_delta "$a" "$b" retry_rnr_exceeded_err)" -eq 1 ]
	[ "$(counter_delta "$a" "$b" retry_exceeded_err)" -eq 0 ]
}

@test "retry exceeded (retry_cnt 2, silent peer): 2 timeouts resend, then 1 retry_exceeded_err" {
	local a b
	a=$(rxe0_counters)
	run -0 timeout 60 "$BATS_FILE_TMPDIR/rxe_verify" rxe0 "$(gid_index)" retry-t14
	b=$(rxe0_counters)
	[ "$(counter_delta "$a" "$b" retry_timeouts)" -eq 2 ]
	[ "$(counter_delta "$a" "$b" completer_retry_err)" -eq 2 ]
	[ "$(counter_delta "$a" "$b" retry_exceeded_err)" -eq 1 ]
	[ "$(counter_delta "$a" "$b" retry_rnr_exceeded_err)" -eq 0 ]
}

@test "eth0 down and up again: link_downed +1" {
	local a b
	a=$(rxe0_counters)
	ip link set eth0 down
	ip link set eth0 up
	b=$(rxe0_counters)
	[ "$(counter_delta "$a" "$b" link_downed)" -eq 1 ]
}

@test "an atomic as the last request, then idle: no retransmit timeout, the QP stays usable" {
	# The completer once left acked_psn one short after an atomic's response: the timer kept
	# firing with nothing outstanding, spent the retries, and the QP went to the error state.
	local a b
	a=$(rxe0_counters)
	run -0 timeout 60 "$BATS_FILE_TMPDIR/rxe_verify" rxe0 "$(gid_index)" atomic-idle
	b=$(rxe0_counters)
	[ "$(counter_delta "$a" "$b" retry_timeouts)" -eq 0 ]
	[ "$(counter_delta "$a" "$b" retry_exceeded_err)" -eq 0 ]
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	kernel_log_clean
}
