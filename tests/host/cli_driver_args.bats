#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl driver's arguments on the host (the shared option parser, cli/opts.c): global options
# anywhere, -f/--force, and every kind of bad input is exit 2 with a sentence that names it.
# What the driver command does on a kernel is in tests/guest/cli_driver.bats and cli_nostock.bats.

bats_require_minimum_version 1.5.0

setup() {
	RXECTL="$BATS_TEST_DIRNAME/../../rxectl"
	[ -x "$RXECTL" ] || skip "build rxectl first (make)"
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR/rxe.conf"
	: > "$RXECTL_CONFIG"
}

@test "--json before or after the command, long or short, gives one JSON document" {
	for args in "driver --json" "--json driver" "driver -j" "-j driver status" "driver status --json"; do
		# shellcheck disable=SC2086
		run -0 --separate-stderr "$RXECTL" $args
		jq -e 'has("kernel") and has("kernel_ships_rdma_rxe") and has("installed")' <<<"$output"
		[ "$(jq -r .kernel <<<"$output")" = "$(uname -r)" ]
	done
}

@test "--help shows the usage and --force, exit 0" {
	run -0 "$RXECTL" driver --help
	[ "${lines[0]}" = "usage: rxectl driver [status | use kernel|bundled|auto [--force]] [--json]" ]
	[[ "$output" == *"-f, --force "* ]]
}

@test "bad arguments are usage errors (exit 2) that say what is wrong" {
	run -2 "$RXECTL" driver --bogus
	[[ "${lines[0]}" == "rxectl: unknown option '--bogus' for driver; \`rxectl driver --help\` lists its options." ]]
	run -2 "$RXECTL" driver use
	[ "${lines[0]}" = "rxectl: driver use needs kernel, bundled or auto." ]
	run -2 "$RXECTL" driver use kernel bundled
	[ "${lines[0]}" = "rxectl: driver use takes one driver, but got 'bundled' too." ]
	run -2 "$RXECTL" driver status now
	[ "${lines[0]}" = "rxectl: driver status takes no arguments, but got 'now'." ]
	run -2 "$RXECTL" driver --force
	[ "${lines[0]}" = "rxectl: --force goes with \`driver use\`." ]
	run -2 "$RXECTL" driver -f status
	[ "${lines[0]}" = "rxectl: --force goes with \`driver use\`." ]
	run -2 "$RXECTL" driver swap
	[ "${lines[0]}" = "rxectl: unknown driver action 'swap'; use status or use." ]
	run -2 "$RXECTL" driver use newest
	[ "${lines[0]}" = "rxectl: unknown driver 'newest'; use kernel, bundled or auto." ]
}

@test "a usage error with --json is one JSON document with exit_code 2" {
	run -2 --separate-stderr "$RXECTL" driver use a b --json
	[ "$(jq -r .error.exit_code <<<"$output")" = 2 ]
	[ "$(jq -r .error.message <<<"$output")" = "driver use takes one driver, but got 'b' too." ]
}
