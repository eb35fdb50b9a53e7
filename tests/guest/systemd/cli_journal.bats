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
	run -1 systemd-run --wait --quiet -p StandardError=journal "$RXECTL" up nosuchj0
	journalctl --sync 2>/dev/null || sleep 1
	entry=$(journalctl -o json --no-pager _COMM=rxectl | jq -c 'select(.MESSAGE | test("nosuchj0"))')
	[ -n "$entry" ]
	[ "$(echo "$entry" | jq -r .PRIORITY)" = 3 ]
	[ "$(echo "$entry" | jq -r ._TRANSPORT)" = journal ]
	[ "$(echo "$entry" | jq -r .MESSAGE)" = "rxectl: netdev nosuchj0 does not exist; check the name with \`ip link\`." ]
	[ "$(echo "$entry" | wc -l)" -eq 1 ]
}

@test "run from a shell, messages go to stderr and not to the journal" {
	run -1 --separate-stderr "$RXECTL" up nosuchj1
	[ "$stderr" = "rxectl: netdev nosuchj1 does not exist; check the name with \`ip link\`." ]
	journalctl --sync 2>/dev/null || sleep 1
	[ "$(journalctl -o cat --no-pager _COMM=rxectl | grep -c nosuchj1)" -eq 0 ]
}
