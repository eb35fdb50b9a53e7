#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl's messages under systemd: native journal entries with a priority when stderr is the
# journal, plain stderr otherwise (run in the systemd guest of the VM test bed).

bats_require_minimum_version 1.5.0

setup() {
	RXECTL="$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)/rxectl"
	[ "$(cat /proc/1/comm)" = systemd ] || skip "needs the systemd guest"
}

@test "in a unit, an error goes to the journal natively with priority err" {
	run -2 systemd-run --wait --quiet -p StandardError=journal "$RXECTL" -c /nosuchj0/rxe.conf up
	journalctl --sync 2>/dev/null || sleep 1
	entry=$(journalctl -o json --no-pager _COMM=rxectl | jq -c 'select(.MESSAGE | test("nosuchj0"))')
	[ -n "$entry" ]
	[ "$(echo "$entry" | jq -r .PRIORITY)" = 3 ]
	[ "$(echo "$entry" | jq -r ._TRANSPORT)" = journal ]
	[ "$(echo "$entry" | jq -r .MESSAGE)" = "rxectl: the configuration file /nosuchj0/rxe.conf does not exist; check the path given with -c or \$RXECTL_CONFIG." ]
	[ "$(echo "$entry" | wc -l)" -eq 1 ]
}

@test "in a unit, a netdev that is not there is a warning (priority warning), exit 3" {
	run -3 systemd-run --wait --quiet -p StandardError=journal "$RXECTL" up nosuchj2
	journalctl --sync 2>/dev/null || sleep 1
	entry=$(journalctl -o json --no-pager _COMM=rxectl | jq -c 'select(.MESSAGE | test("nosuchj2"))')
	[ "$(echo "$entry" | jq -r .PRIORITY)" = 4 ]
	[ "$(echo "$entry" | jq -r .MESSAGE)" = "rxectl: netdev nosuchj2 does not exist; check the name with \`ip link\`." ]
}

@test "run from a shell, messages go to stderr and not to the journal" {
	run -3 --separate-stderr "$RXECTL" up nosuchj1
	[ "$stderr" = "rxectl: netdev nosuchj1 does not exist; check the name with \`ip link\`." ]
	journalctl --sync 2>/dev/null || sleep 1
	[ "$(journalctl -o cat --no-pager _COMM=rxectl | grep -c nosuchj1)" -eq 0 ]
}
