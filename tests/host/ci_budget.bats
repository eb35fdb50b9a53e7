#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# CI's guest-time budget (tests/vm/budget.md, tests/vm/ci-budget): every guest file .ci/run runs
# has a measured row, and the estimate stays within the limit, so a new or slower file is seen
# here, on the host, before a CI run goes over its 90 minutes.

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export TOP
	# What CI runs, once for the file (check-kernels --list asks kernel-row about every row).
	export RXE_BUDGET_FILES=$BATS_FILE_TMPDIR/files
	"$TOP/tests/vm/ci-budget" files > "$RXE_BUDGET_FILES"
}

@test "every guest file CI runs has a row in the budget table, and CI's estimate is within the limit" {
	run -0 "$TOP/tests/vm/ci-budget" check
	echo "$output"
	[[ "$output" == *"estimate"*"of 3600 s"* ]]
}

@test "the list of what CI runs has make check's, check-install's and each CI row's files, without the opt-in ones" {
	grep -qx 'check tests/guest/driver_data.bats' "$RXE_BUDGET_FILES"
	grep -qx 'install tests/guest/systemd/pkg_lifecycle.bats' "$RXE_BUDGET_FILES"
	grep -qx 'kernels:6.1-cloud tests/guest/pair/kernels_bundled_pair.bats' "$RXE_BUDGET_FILES"
	grep -qx 'kernels:newest tests/guest/driver_link.bats' "$RXE_BUDGET_FILES"
	# CI's skips (.ci/run's ci_skip, install_skip) are applied: driver_verbs runs on the default
	# row only, the rows' interop pairs and the Ansible pair in the opt-in targets
	! grep -q '^kernels:.* tests/guest/driver_verbs.bats$' "$RXE_BUDGET_FILES"
	! grep -q '^kernels:.* tests/guest/pair/driver_interop.bats$' "$RXE_BUDGET_FILES"
	! grep -q 'pkg_ansible' "$RXE_BUDGET_FILES"
	# make check-more's files are not make check's
	! grep -q 'driver_netem' "$RXE_BUDGET_FILES"
	grep -qx 'check tests/guest/pair/driver_interop.bats' "$RXE_BUDGET_FILES"
}

@test "run-all --more lists make check-more's files, and make check's list has none of them" {
	run -0 "$TOP/tests/run-all" --more --list
	[[ "$output" == *tests/guest/pair/driver_netem.bats* ]]
	more=$output
	run -0 "$TOP/tests/run-all" --list
	while read -r f; do [[ "$output" != *"$f"* ]] || { echo "$f is in both"; false; }; done <<<"$more"
	run -0 "$TOP/tests/run-all" --install --skip pkg_ansible --list
	[ "$output" = "tests/guest/systemd/pkg_lifecycle.bats
tests/guest/systemd/pkg_container.bats" ]
}

@test "a guest file without a row fails the check and is named" {
	grep -v 'tests/guest/driver_data.bats' "$TOP/tests/vm/budget.md" | grep -v '^| check ' > "$BATS_TEST_TMPDIR/t.md"
	grep '^| check ' "$TOP/tests/vm/budget.md" | grep -v 'driver_data' >> "$BATS_TEST_TMPDIR/t.md"
	RXE_BUDGET_TABLE=$BATS_TEST_TMPDIR/t.md run -1 "$TOP/tests/vm/ci-budget" check
	echo "$output"
	[[ "$output" == *"no row for check tests/guest/driver_data.bats"* ]]
}

@test "a row for a file CI no longer runs is stale" {
	{ cat "$TOP/tests/vm/budget.md"; echo '| check | tests/guest/gone.bats | 10 |'; } > "$BATS_TEST_TMPDIR/t.md"
	RXE_BUDGET_TABLE=$BATS_TEST_TMPDIR/t.md run -1 "$TOP/tests/vm/ci-budget" check
	[[ "$output" == *"stale row check tests/guest/gone.bats"* ]]
}

@test "a table whose estimate is over the limit fails the check" {
	sed 's/^| limit | - | [0-9]* |/| limit | - | 600 |/' "$TOP/tests/vm/budget.md" > "$BATS_TEST_TMPDIR/t.md"
	RXE_BUDGET_TABLE=$BATS_TEST_TMPDIR/t.md run -1 "$TOP/tests/vm/ci-budget" check
	echo "$output"
	[[ "$output" == *"of 600 s"* && "$output" == *"over the limit by"* ]]
}

@test "measure reads a file's guest time from its TAP log and counts a pair twice" {
	printf '# file: tests/guest/x.bats\nok 1 a\nvm-run: guest time 40 s, slot wait 3 s\n# exit: 0 after 43s\n' > "$BATS_TEST_TMPDIR/vm-001.tap"
	printf '# file: tests/guest/pair/y.bats\nvm-run: guest time 50 s, slot wait 0 s\n' > "$BATS_TEST_TMPDIR/vm-002.tap"
	run -0 "$TOP/tests/vm/ci-budget" measure check "$BATS_TEST_TMPDIR"/vm-00[12].tap
	[ "$output" = "| check | tests/guest/x.bats | 40 |
| check | tests/guest/pair/y.bats | 100 |" ]
}
