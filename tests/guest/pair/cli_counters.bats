#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Counters under loss: with guest b dropping 20% of what it sends (netem), RC traffic between
# the pair makes the in-tree rdma_rxe's error counters grow, `rxectl stats --watch` shows it,
# and `rxectl doctor` warns in counters.errors naming loss as the cause.

bats_require_minimum_version 1.5.0
load pair_lib

setup_file() {
	[ -n "${VM_ROLE:-}" ] || skip "not in a pair of test bed guests"
	export RXECTL_CONFIG="$BATS_FILE_TMPDIR/rxe.conf"
	: > "$RXECTL_CONFIG"
	"$RXECTL" up eth0 >/dev/null
	barrier up
}

teardown() {
	pair_teardown	# a failure here fails the other guest's barriers at once, not in 10 min
}

teardown_file() {
	tc qdisc del dev eth0 root 2>/dev/null || true
	"$RXECTL" down --all >/dev/null 2>&1 || true
}

err_sum() {	# the sum of the error counters of rxe_eth0 in a stats --json document
	jq '.devices[0].counters | [.duplicate_request, .out_of_seq_request, .rcvd_seq_err,
		.completer_retry_err] | add' <<<"$1"
}

@test "loss on the wire: error counters grow, stats --watch shows it, doctor warns and names loss" {
	local pp doc watch alive
	g=$(gid_index rxe_eth0)
	before=$("$RXECTL" stats --json)
	# The pingpong runs until it is stopped after the samples: a fixed count ended before the
	# sampling once the bed's wire stopped dropping bursts of its own (it was slow before).
	if [ "$VM_ROLE" = a ]; then
		ibv_rc_pingpong -d rxe_eth0 -g "$g" -s 4096 -n 1000000 > "$BATS_TEST_TMPDIR/srv" 2>&1 &
		pp=$!
		barrier server-up
		barrier loss-on
		# sample while the lossy traffic runs: up to five 1-s samples (the traffic may sit
		# out a retransmission timeout through one of them)
		for _ in 1 2 3 4 5; do
			doc=$("$RXECTL" doctor eth0 --json 2>/dev/null) || true	# exit 1: it warns
			[ "$(jq -r '.checks[] | select(.id == "counters.errors") | .status' <<<"$doc")" = warn ] && break
		done
	else
		modprobe sch_netem
		barrier server-up
		# The loss goes on only once the RC traffic runs: the pingpong's TCP exchange under 20%
		# loss took seconds of SYN and RTO backoff now and then, and the samples saw no traffic.
		ibv_rc_pingpong -d rxe_eth0 -g "$g" -s 4096 -n 1000000 "$VM_PEER_IP" > "$BATS_TEST_TMPDIR/cli" 2>&1 &
		pp=$!
		sent0=$(jq '.devices[0].counters.sent_pkts' <<<"$before")
		for _ in $(seq 60); do
			sent=$("$RXECTL" stats --json | jq '.devices[0].counters.sent_pkts')
			[ "$((sent - sent0))" -lt 200 ] || break
			sleep 0.5
		done
		echo "b: sent_pkts +$((sent - sent0)) before the loss went on"
		[ "$((sent - sent0))" -ge 200 ]
		tc qdisc add dev eth0 root netem loss 20%
		sleep 1
		barrier loss-on
		run -124 --separate-stderr timeout 3.5 "$RXECTL" stats --watch 1 --json
		watch=$output
	fi
	alive=0
	! kill -0 "$pp" || alive=1	# the traffic still ran when the samples were taken
	echo "$VM_ROLE: pingpong alive at the samples: $alive"
	barrier sampled
	kill "$pp" 2>/dev/null || true
	wait "$pp" || true
	[ "$alive" = 1 ]
	[ "$VM_ROLE" = a ] || tc qdisc del dev eth0 root
	if [ "$VM_ROLE" = a ]; then
		echo "$doc"
		c=$(jq -c '.checks[] | select(.id == "counters.errors")' <<<"$doc")
		[ "$(jq -r .status <<<"$c")" = warn ]
		[[ "$(jq -r .summary <<<"$c")" == "error counters of rxe_eth0 grew during a 1000 ms sample ("*"); the likely cause of "*"check the MTU on both ends and the switch, the firewall for UDP 4791, and the link"* ]]
		[ "$(jq -r .fix <<<"$c")" = "watch them with \`rxectl stats rxe_eth0 --watch 1\` while you fix the cause; \`rxectl doctor\` checks the MTU (mtu.active) and the firewall (firewall.udp4791)." ]
	else
		echo "$watch"
		[ "$(jq -s '[.[].devices[0].delta | .completer_retry_err + .rcvd_seq_err + .duplicate_request + .out_of_seq_request] | add' <<<"$watch")" -gt 0 ]
	fi
	after=$("$RXECTL" stats --json)
	[ "$(err_sum "$after")" -gt "$(err_sum "$before")" ]
	barrier done
}
