#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# stats, debug, driver, tune: help, and bad arguments are usage errors (exit 2) before anything
# touches the system (runs on the host, no RDMA needed).

bats_require_minimum_version 1.5.0

RXECTL="$BATS_TEST_DIRNAME/../../rxectl"

@test "--help lists stats, debug, driver and tune; each has its usage line" {
	run -0 "$RXECTL" --help
	for c in stats debug driver tune; do
		[[ "$output" == *$'\n'"  $c "* ]]
	done
	run -0 "$RXECTL" stats --help
	[ "${lines[0]}" = "usage: rxectl stats [DEVICE|NETDEV] [--json] [--watch SECONDS | --prometheus [--output FILE]]" ]
	run -0 "$RXECTL" debug --help
	[ "${lines[0]}" = "usage: rxectl debug on|off|status [DEVICE] [--json]" ]
	run -0 "$RXECTL" driver --help
	[ "${lines[0]}" = "usage: rxectl driver [status | use kernel|bundled|auto [--force]] [--json]" ]
	run -0 "$RXECTL" tune --help
	[ "${lines[0]}" = "usage: rxectl tune [NETDEV] [--apply [--persist | --from-config]] | --revert [--json]" ]
}

@test "stats: a bad --watch or too many names is exit 2" {
	run -2 "$RXECTL" stats --watch 0
	[[ "$output" == "rxectl: --watch needs a number of seconds from 0.1 to 3600, not '0'."* ]]
	run -2 "$RXECTL" stats --watch 1x
	run -2 "$RXECTL" stats --watch
	[[ "$output" == "rxectl: option --watch needs a value (SECONDS)."* ]]
	run -2 "$RXECTL" stats a b
	run -2 "$RXECTL" stats --frob
}

@test "debug: a missing or unknown action is exit 2" {
	run -2 "$RXECTL" debug
	[[ "$output" == "rxectl: debug needs on, off or status."* ]]
	run -2 "$RXECTL" debug loud
	run -2 "$RXECTL" debug on a b
}

@test "driver: unknown actions and drivers are exit 2" {
	run -2 "$RXECTL" driver use
	run -2 "$RXECTL" driver use stock
	[[ "$output" == "rxectl: unknown driver 'stock'; use kernel, bundled or auto."* ]]
	run -2 "$RXECTL" driver use kernel bundled
	run -2 "$RXECTL" driver swap
	run -2 "$RXECTL" driver status extra
	run -2 "$RXECTL" driver --force
}

@test "tune: contradicting options are exit 2" {
	run -2 "$RXECTL" tune lo --persist
	[[ "$output" == "rxectl: --persist goes with --apply: it keeps what --apply changes."* ]]
	run -2 "$RXECTL" tune --revert --apply
	run -2 "$RXECTL" tune --revert lo
	run -2 "$RXECTL" tune lo eth0
	run -2 "$RXECTL" tune 'a/b'
	run -2 "$RXECTL" tune lo --from-config
	[[ "$output" == "rxectl: --from-config goes with --apply alone: it applies what rxe.conf's tune = yes asks for, for this boot."* ]]
	run -2 "$RXECTL" tune lo --apply --persist --from-config
}

@test "tune --apply --from-config changes nothing when rxe.conf does not say tune = yes" {
	printf '[global]\ntune = no\n' > "$BATS_TEST_TMPDIR/rxe.conf"
	run -0 "$RXECTL" -c "$BATS_TEST_TMPDIR/rxe.conf" tune lo --apply --from-config
	[ "$output" = "$BATS_TEST_TMPDIR/rxe.conf does not say tune = yes: nothing changed." ]
	run -0 "$RXECTL" -c "$BATS_TEST_TMPDIR/rxe.conf" tune lo --apply --from-config --json
	[ "$(jq -c . <<<"$output")" = '{"netdev":"lo","applied":false,"changed":[]}' ]
	printf '[global]\ntune = maybe\n' > "$BATS_TEST_TMPDIR/rxe.conf"
	run -2 "$RXECTL" -c "$BATS_TEST_TMPDIR/rxe.conf" tune lo --apply --from-config
	[[ "$output" == "rxectl: $BATS_TEST_TMPDIR/rxe.conf:2: "* ]]
}

@test "the units' hook: a netdev gone (renamed away) is churn, exit 3 with a warning; by hand it is an error" {
	printf '[global]\ntune = no\n' > "$BATS_TEST_TMPDIR/no.conf"
	printf '[global]\ntune = yes\n' > "$BATS_TEST_TMPDIR/yes.conf"
	# tune = no decides before the netdev is looked at: nothing to say about it
	run -0 "$RXECTL" -c "$BATS_TEST_TMPDIR/no.conf" tune rxnosuch0 --apply --from-config
	[ "$output" = "$BATS_TEST_TMPDIR/no.conf does not say tune = yes: nothing changed." ]
	run -3 --separate-stderr "$RXECTL" -c "$BATS_TEST_TMPDIR/yes.conf" tune rxnosuch0 --apply --from-config --json
	[ "$(jq -c '{applied, changed}' <<<"$output")" = '{"applied":false,"changed":[]}' ]
	[ "$stderr" = "rxectl: netdev rxnosuch0 went away; nothing tuned (it is when it appears again)." ]
	run -1 "$RXECTL" -c "$BATS_TEST_TMPDIR/yes.conf" tune rxnosuch0 --apply
	[ "$output" = "rxectl: netdev rxnosuch0 does not exist; check the name with \`ip link\`." ]
}

@test "tune without --apply reads and changes nothing, even as a user" {
	run -0 --separate-stderr "$RXECTL" tune lo --json
	[ "$(jq -r .applied <<<"$output")" = false ]
	[ "$(jq -r '.tunables[] | select(.id == "net.core.rmem_max") | .current' <<<"$output")" = "$(cat /proc/sys/net/core/rmem_max)" ]
}
