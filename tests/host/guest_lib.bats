#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The guest test library (tests/guest/lib.bash) on the host, where its pure parts can run: the
# checkout found from its own path, and kernel_log_clean judging a kernel log by the one pattern
# file that vm-run --dmesg-clean reads too (a fake dmesg on PATH gives it the log).

bats_require_minimum_version 1.5.0

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	B=$BATS_TEST_TMPDIR/bin
	mkdir -p "$B"
	printf '#!/bin/sh\ncat "%s/log"\n' "$BATS_TEST_TMPDIR" > "$B/dmesg"
	chmod +x "$B/dmesg"
}

@test "lib.bash finds the checkout from its own path, sourced from anywhere, without BATS_TEST_DIRNAME" {
	run -0 env -u BATS_TEST_DIRNAME bash -c "cd / && . '$TOP/tests/guest/lib.bash' && echo \"\$TOP\""
	[ "$output" = "$TOP" ]
	run -0 env -u BATS_TEST_DIRNAME bash -c "cd '$TOP/bench' && . ../tests/guest/lib.bash && echo \"\$TOP\""
	[ "$output" = "$TOP" ]
	# and no guest script fakes it any more
	! grep -n 'BATS_TEST_DIRNAME=' "$TOP"/bench/*
}

@test "kernel_log_clean passes a clean log and fails, printing it, on a line of every pattern" {
	printf '[    1.0] rdma_rxe: loaded\n[    2.0] nvme nvme0: new ctrl\n' > "$BATS_TEST_TMPDIR/log"
	PATH=$B:$PATH run -0 bash -c ". '$TOP/tests/guest/lib.bash' && kernel_log_clean"
	n=0
	while read -r p; do
		case $p in '#'* | '') continue ;; esac
		printf '[    1.0] ok\n[    3.0] x %s y\n' "$p" > "$BATS_TEST_TMPDIR/log"
		PATH=$B:$PATH run -1 bash -c ". '$TOP/tests/guest/lib.bash' && kernel_log_clean"
		[[ "$output" == *"x $p y"* ]] || { echo "pattern '$p': $output"; false; }
		[[ "$output" != *"ok"* ]]
		n=$((n + 1))
	done < "$TOP/tests/vm/kernel-log-bad"
	[ "$n" -ge 10 ]
}

@test "the pattern file is the union of the checks the guest files had: hung task in both spellings, blocked tasks, leaks" {
	for line in 'INFO: task kworker/0:1:42 blocked for more than 120 seconds.' \
		'hung_task: blocked tasks' 'detected hung task' 'WARNING: CPU: 0 PID: 1 at x' \
		'BUG: KASAN: use-after-free' 'refcount_t: underflow; use-after-free.' \
		'ib_core: ref leak' 'possible circular locking dependency detected' \
		'general protection fault' 'UBSAN: shift-out-of-bounds'; do
		printf '%s\n' "$line" > "$BATS_TEST_TMPDIR/log"
		PATH=$B:$PATH run -1 bash -c ". '$TOP/tests/guest/lib.bash' && kernel_log_clean"
	done
}

@test "vm-run --dmesg-clean and kernel_log_clean read the same pattern file, and no guest file greps its own" {
	grep -q 'grep -E -f <(grep -v .^#. "$here/kernel-log-bad") "$d/dmesg"' "$TOP/tests/vm/vm-run"
	grep -q 'grep -E -f <(grep -v .^#. "$TOP/tests/vm/kernel-log-bad")' "$TOP/tests/guest/lib.bash"
	run grep -rlE "grep -E '[^']*WARNING\|BUG" "$TOP/tests/guest"
	# files other branches of issue 37 edit now; they move to kernel_log_clean when those land
	echo "$output" | grep -vE '/(driver_hostile|driver_mw|driver_limits|driver_extra|driver_fuzz|driver_ktest|pkg_lifecycle)\.bats$' |
		{ ! grep .; }
}

@test "the pair helpers are in pair/pair_lib.bash, which loads lib.bash; every pair file that uses one loads it" {
	run -0 env -u BATS_TEST_DIRNAME bash -c "cd / && . '$TOP/tests/guest/pair/pair_lib.bash' && type barrier between between_once pair_teardown interop_driver kernel_log_clean >/dev/null && echo \"\$TOP\""
	[ "$output" = "$TOP" ]
	run -0 bash -c ". '$TOP/tests/guest/lib.bash' && ! type barrier 2>/dev/null && ! type between 2>/dev/null"
	for f in "$TOP"/tests/guest/pair/*.bats "$TOP"/tests/guest/systemd/pair/*.bats; do
		grep -qwE 'barrier|between|pair_teardown|interop_driver' "$f" || continue
		grep -qE '^load (pair_lib|ping_lib|\.\./\.\./pair/pair_lib)$' "$f" || { echo "$f loads no pair_lib"; false; }
	done
}
