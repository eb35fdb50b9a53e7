#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# --json on failure: every command prints exactly one JSON document on stdout, with
# "error": {"message", "exit_code"} matching the exit status (rxectl(8), JSON OUTPUT).

bats_require_minimum_version 1.5.0

setup() {
	RXECTL="$BATS_TEST_DIRNAME/../../rxectl"
	[ -x "$RXECTL" ] || skip "build rxectl first (make)"
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR/rxe.conf"
	printf '[lo]\n' > "$RXECTL_CONFIG"
}

no_rdma_kernel() {
	[ ! -d /sys/module/ib_core ] && ! modinfo ib_core >/dev/null 2>&1
}

# json_error STATUS ARGS...: run rxectl ARGS, expect exit STATUS and one JSON document on stdout
# whose error member carries STATUS and a message (also printed on stderr).
json_error() {
	local want=$1; shift
	run --separate-stderr "$RXECTL" "$@"
	echo "status $status, stdout: $output" >&2
	[ "$status" -eq "$want" ]
	[ "$(jq -s length <<< "$output")" = 1 ]
	[ "$(jq .error.exit_code <<< "$output")" = "$want" ]
	msg=$(jq -r .error.message <<< "$output")
	[ -n "$msg" ] && [ "$msg" != null ]
}

@test "status --json with a malformed config: one document, error exit 2 with file:line" {
	printf '[lo] junk\n' > "$RXECTL_CONFIG"
	json_error 2 status --json
	[[ "$msg" == *"rxe.conf:1: only a comment may follow"* ]]
	[[ "$stderr" == *"rxe.conf:1: only a comment may follow"* ]]
}

@test "up --json with a malformed config: error exit 2, nothing else claimed" {
	printf '[lo]\nname : x\n' > "$RXECTL_CONFIG"
	json_error 2 --json up
	[[ "$msg" == *"rxe.conf:2:"* ]]
}

@test "down --json without a target: error exit 2" {
	json_error 2 down --json
	[ "$msg" = "say which device to delete: a NETDEV, a DEVICE, or --all." ]
}

@test "gid --json with two devices: error exit 2" {
	json_error 2 --json gid a b
}

@test "test --json with two devices: error exit 2" {
	json_error 2 --json test a b
}

@test "doctor --json with a malformed config: error exit 2" {
	printf '[[lo]]\n' > "$RXECTL_CONFIG"
	json_error 2 --json doctor
}

@test "ping --json without a host: error exit 2" {
	json_error 2 --json ping
	[[ "$msg" == *"give the HOST to ping"* ]]
}

@test "monitor --json: one error document, exit 2" {
	json_error 2 --json monitor
	[[ "$msg" == *"monitor logs what it does; it has no JSON output."* ]]
}

@test "enable and disable --json: one object saying what changed (Ansible's changed_when), and an error document on a bad option" {
	[ -d /run/systemd/system ] && skip "systemd runs here: enable would change real units"
	export RXECTL_CONFIG=$BATS_TEST_TMPDIR/rxe.conf
	: > "$RXECTL_CONFIG"
	run -0 --separate-stderr "$RXECTL" --json enable eth0
	[ "$(jq -c 'del(.config)' <<<"$output")" = '{"netdev":"eth0","unit":"rxe@eth0.service","config_changed":true,"unit_changed":null,"changed":true}' ]
	[ "$(jq -r .config <<<"$output")" = "$RXECTL_CONFIG" ]
	run -0 --separate-stderr "$RXECTL" --json enable eth0
	[ "$(jq -c '[.config_changed, .changed]' <<<"$output")" = '[false,false]' ]
	run -0 --separate-stderr "$RXECTL" --json disable eth0
	[ "$(jq -c '[.config_changed, .unit_changed, .changed]' <<<"$output")" = '[true,null,true]' ]
	run -0 --separate-stderr "$RXECTL" --json disable eth0
	[ "$(jq -c '.changed' <<<"$output")" = false ]
	json_error 2 --json enable eth0 --bogus
	[[ "$msg" == "unknown option '--bogus' for enable"* ]]
}

@test "an unknown command and an unknown global option after --json: one error document" {
	json_error 2 --json frobnicate
	[[ "$msg" == "unknown command 'frobnicate'"* ]]
	json_error 2 --json --frob status
}

@test "every command of --help's table, given --json and an unknown option, prints one error document" {
	cmds=$("$RXECTL" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }' | grep -vx help)
	[ "$(wc -w <<< "$cmds")" -ge 15 ]
	for cmd in $cmds; do
		json_error 2 --json "$cmd" --no-such-option
		[[ "$msg" == *"'--no-such-option'"* ]]
	done
}

@test "a directory as config with --json: error exit 2" {
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR"
	json_error 2 --json status
	[[ "$msg" == *"it is a directory"* ]]
}

@test "on a kernel without RDMA, status, down, gid, test, up and stats --json each print one error document" {
	no_rdma_kernel || skip "this kernel has RDMA support"
	for cmd in status "down lo" gid test "up lo" stats; do
		# shellcheck disable=SC2086
		json_error 1 --json $cmd
		[[ "$msg" == *"has no RDMA support"* ]]
	done
}

@test "udev-env --json prints the same facts as fields" {
	run -0 "$RXECTL" --json udev-env lo
	[ "$(jq -c . <<< "$output")" = '{"managed":true,"name":"rxe_lo","unit":"rxe@lo.service"}' ]
	run -0 "$RXECTL" --json udev-env eth9
	[ "$(jq -c . <<< "$output")" = '{"managed":false}' ]
}

@test "a successful --json run has no error member" {
	run -0 "$RXECTL" --json udev-env lo
	[ "$(jq 'has("error")' <<< "$output")" = false ]
}
