#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# bench/driver-vs-stock refuses bad arguments and settings with exit 2 and a message, before it
# builds anything or starts a guest.

bats_require_minimum_version 1.5.0

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	# a make that only notes it ran: none of these may get as far as building the driver
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\ntouch "%s/made"\nexit 1\n' "$BATS_TEST_TMPDIR" > "$BATS_TEST_TMPDIR/bin/make"
	chmod +x "$BATS_TEST_TMPDIR/bin/make"
	export PATH="$BATS_TEST_TMPDIR/bin:$PATH"
}

teardown() {
	[ ! -e "$BATS_TEST_TMPDIR/made" ]
}

@test "an unknown argument exits 2 and shows the usage" {
	run -2 "$TOP/bench/driver-vs-stock" --pairs
	[ "$output" = "bench: unknown argument '--pairs' (usage: bench/driver-vs-stock [--pair])" ]
}

@test "BENCH_SMP outside 1-8 exits 2" {
	BENCH_SMP=9 run -2 "$TOP/bench/driver-vs-stock"
	[ "$output" = "bench: BENCH_SMP=9 is not a CPU count 1-8" ]
}

@test "BENCH_NETEM without --pair exits 2 and says to add it" {
	BENCH_NETEM="loss 2%" run -2 "$TOP/bench/driver-vs-stock"
	[ "$output" = "bench: BENCH_NETEM shapes the wire between two guests: add --pair" ]
}
