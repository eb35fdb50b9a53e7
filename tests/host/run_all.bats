#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# tests/run-all's tally: CI shows only the end of the output, so every failing test is named
# there again with the test file's line and the command it failed on.

bats_require_minimum_version 1.5.0

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	F=$BATS_TEST_TMPDIR/tree
	mkdir -p "$F/tests/host" "$F/tests/unit"
	cp "$TOP/tests/run-all" "$F/tests/"
	export RXE_TEST_LOGS=$BATS_TEST_TMPDIR/logs
}

@test "the tally names each failing test with its line and failed command, and exits 1" {
	# TEST, not the at-sign form: bats would take those lines of this heredoc for its own tests
	sed 's/^TEST/@test/' > "$F/tests/host/f.bats" <<'B'
bats_require_minimum_version 1.5.0
helper() { [ 1 = 2 ]; }
TEST "passes" { true; }
TEST "fails in a helper" {
	helper
}
TEST "fails in run" {
	run -0 false
}
B
	run -1 "$F/tests/run-all" --host-only tests/host/f.bats
	echo "$output"
	[ "$(tail -n3 <<<"$output")" = "run-all: tests/host/f.bats: not ok 2 fails in a helper (line 5): \`helper' failed
run-all: tests/host/f.bats: not ok 3 fails in run (line 8): \`run -0 false' failed, expected exit code 0, got 1
1 passed, 2 failed, 0 skipped" ]
}

@test "a file that exits non-zero without a failing test counts as one failure" {
	printf '#!/bin/sh\necho "ok 1 one"\nexit 3\n' > "$F/tests/unit/test_g"
	chmod +x "$F/tests/unit/test_g"
	run -1 "$F/tests/run-all" --host-only tests/unit/test_g
	echo "$output"
	[[ "$(tail -n2 <<<"$output")" == "run-all: tests/unit/test_g failed without a failing test (exit 3); log: "*"
1 passed, 1 failed, 0 skipped" ]]
}
