#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Retransmit and RNR timing of the bundled rdma_rxe (issue 9, lossy wire): the local ACK timeout
# follows the QP's timeout attribute (4.096 us * 2^timeout, 0 = never), and retry-exceeded /
# RNR-retry-exceeded end in their error completions within the time the attributes give. Two RC
# QPs on one device (tests/driver/rxe_verify); the "silent peer" is the other QP moved to RESET.
#   tests/vm/vm-run -- bats tests/guest/driver_retry.bats

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	setup_bundled_rxe0
}

teardown_file() {
	teardown_bundled_rxe0
}

# timed TEST: run it, show its timing line, pass when it ends with "ok TEST".
timed() {
	local idx
	idx=$(gid_index)
	run timeout 60 "$BATS_FILE_TMPDIR/rxe_verify" rxe0 "$idx" "$1"
	sed 's/^/# /' <<<"$output" >&3
	[ "$status" = 0 ] && [ "${lines[-1]}" = "ok $1" ]
}

@test "timeout 14, retry_cnt 2, silent peer: RETRY_EXC_ERR after 3 x 67 ms (no 250 ms floor)" {
	timed retry-t14
}

@test "timeout 18, retry_cnt 2, silent peer: RETRY_EXC_ERR after 3 x 1.07 s" {
	timed retry-t18
}

@test "timeout 0 is infinite: a SEND to a silent peer does not time out (was 2 s)" {
	timed retry-t0
}

@test "rnr_retry 2, min_rnr_timer 26, no receive: RNR_RETRY_EXC_ERR after 2 x 82 ms" {
	timed rnr-timed
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	kernel_log_clean
}
