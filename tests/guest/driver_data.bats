#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Data and error semantics of the bundled rdma_rxe, checked byte by byte by tests/driver/rxe_verify
# (two RC QPs on one device, looped back); then a clean kernel log.
#   tests/vm/vm-run -- bats tests/guest/driver_data.bats

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	setup_bundled_rxe0
}

teardown_file() {
	teardown_bundled_rxe0
}

verify() {
	local idx
	idx=$(gid_index)
	run -0 timeout 60 "$BATS_FILE_TMPDIR/rxe_verify" rxe0 "$idx" "$1"
	[ "$output" = "ok $1" ]
}

@test "RDMA WRITE and READ of 1 byte to 512 KiB at odd offsets land exactly" {
	verify write-read
}

@test "SEND with immediate data gathers 3 SGEs and scatters into 2" {
	verify send-sge-imm
}

@test "inline SEND delivers the data copied at post time" {
	verify inline
}

@test "RDMA WRITE with immediate data writes and completes a receive with the immediate" {
	verify write-imm
}

@test "fetch-and-add and compare-and-swap return the old value and update the target" {
	verify atomics
}

@test "a WRITE with a wrong rkey completes with a remote access error" {
	verify bad-rkey
}

@test "a READ past the end of the remote MR completes with a remote access error" {
	verify out-of-range
}

@test "a WRITE from a wrong lkey completes with a local protection error" {
	verify bad-lkey
}

@test "a SEND larger than the receive buffer fails on both sides with length / invalid request" {
	verify recv-too-small
}

@test "a SEND before the receive is posted is retried after RNR NAKs and arrives intact" {
	verify rnr-retry
}

@test "with rnr_retry 1 and no receive posted, the SEND fails with RNR retry exceeded" {
	verify rnr-exceeded
}

@test "moving a QP to the error state flushes its posted receives" {
	verify flush
}

@test "random bytes in the shared send rings become error completions, not kernel faults" {
	verify garbage-sq
	verify write-read
}

@test "SEND with invalidate of a user MR is a remote access error: no receive claims an invalidation" {
	verify send-inv
}

@test "IB_WR_REG_MR written into a user send ring is refused (local QP operation error)" {
	verify user-reg-mr
}

@test "QP_FATAL is raised for a remote access fault, not for the application's own move to ERR" {
	verify qp-events
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	kernel_log_clean
}
