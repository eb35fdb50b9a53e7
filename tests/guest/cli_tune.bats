#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl tune: reports the real values, --apply changes exactly what it printed, --revert restores
# what --apply recorded, --persist writes a sysctl.d file sysctl accepts and the MTU into rxe.conf
# (run in the VM test bed; the unit's tune hook is tests/guest/systemd/cli_tune_unit.bats).

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
}

setup() {
	use_empty_config
}

teardown() {
	"$RXECTL" tune --revert >/dev/null 2>&1 || true
	"$RXECTL" down --all >/dev/null 2>&1 || true
}

# Every tunable's file and its value now, one "path value" line each.
snapshot() {
	"$RXECTL" tune eth0 --json | jq -r '.tunables[] | select(.path) | .path' |
		while read -r p; do echo "$p $(tr '\t' ' ' < "$p")"; done
}

@test "tune reports the real current values" {
	run -0 --separate-stderr "$RXECTL" tune eth0 --json
	[ "$(jq -r .netdev <<<"$output")" = eth0 ]
	val() { jq -r --arg id "$1" '.tunables[] | select(.id == $id) | .current' <<<"$output"; }
	[ "$(val mtu)" = "$(cat /sys/class/net/eth0/mtu)" ]
	[ "$(val net.core.rmem_max)" = "$(sysctl -n net.core.rmem_max)" ]
	[ "$(val net.core.wmem_default)" = "$(sysctl -n net.core.wmem_default)" ]
	# virtio-net allows 65535: the recommendation is the usual jumbo size, with its RoCE MTU
	[ "$(jq -r '.tunables[] | select(.id == "mtu") | .recommended' <<<"$output")" = 9000 ]
	[[ "$(jq -r '.tunables[] | select(.id == "mtu") | .why' <<<"$output")" == "RoCE active MTU 1024 -> 4096 (eth0 allows up to 65535; 9000 is the usual jumbo size); both ends and every switch between them must carry it"* ]]
	[ "$(jq -r '.tunables[] | select(.id == "governor") | .why' <<<"$output")" = "no CPU frequency scaling here (a virtual machine, or a fixed clock): nothing to set" ]
}

@test "tune without --apply changes nothing" {
	before=$(snapshot)
	run -0 "$RXECTL" tune eth0
	[ "${lines[0]}" = "tuning for eth0 (nothing changes without --apply)" ]
	[ "$(snapshot)" = "$before" ]
	[ ! -e /run/rxectl/tune.state ]
}

@test "--apply changes exactly what it printed, and the RoCE MTU follows" {
	"$RXECTL" up eth0 >/dev/null
	before=$(snapshot)
	want=$("$RXECTL" tune eth0 --json | jq -c '[.tunables[] | select(.recommended) | {path, to: .recommended}]')
	[ "$(jq length <<<"$want")" -ge 5 ]
	run -0 --separate-stderr "$RXECTL" tune eth0 --apply --json
	[ "$(jq -c '[.changed[] | {path, to}]' <<<"$output")" = "$want" ]
	# every changed file holds the new value, every other file is untouched
	for p in $(jq -r '.[].path' <<<"$want"); do
		[ "$(cat "$p")" = "$(jq -r --arg p "$p" '.[] | select(.path == $p) | .to' <<<"$want")" ]
	done
	diff <(grep -v -F -f <(jq -r '.[].path' <<<"$want") <<<"$before") \
	     <(snapshot | grep -v -F -f <(jq -r '.[].path' <<<"$want"))
	[ "$("$RXECTL" status --json | jq '.devices[0].active_mtu')" -eq 4096 ]
	run -0 "$RXECTL" tune eth0 --apply
	[[ "$output" != *"changed "* ]]	# nothing left to change
}

@test "--revert restores exactly what --apply recorded, once" {
	before=$(snapshot)
	"$RXECTL" tune eth0 --apply >/dev/null
	[ "$(snapshot)" != "$before" ]
	run -0 "$RXECTL" tune --revert
	[[ "$output" == *"restored /sys/class/net/eth0/mtu: 9000 -> 1500"* ]]
	[ "$(snapshot)" = "$before" ]
	[ ! -e /run/rxectl/tune.state ]
	run -0 "$RXECTL" tune --revert
	[ "$output" = "nothing to revert: \`rxectl tune --apply\` recorded nothing (/run/rxectl/tune.state)." ]
}

@test "a value changed by hand after --apply is still restored to the original" {
	before=$(snapshot)
	"$RXECTL" tune eth0 --apply >/dev/null
	sysctl -qw net.core.rmem_max=1234567
	"$RXECTL" tune eth0 --apply >/dev/null	# records nothing new for rmem_max
	"$RXECTL" tune --revert >/dev/null
	[ "$(snapshot)" = "$before" ]
}

@test "--persist writes a sysctl.d file that sysctl --system accepts, and --revert removes it" {
	run -0 --separate-stderr "$RXECTL" tune eth0 --apply --persist
	f=/etc/sysctl.d/90-rxectl-tune.conf
	[ -f "$f" ]
	[[ "$output" == *"wrote $f"* ]]
	[[ "$stderr" == *"the MTU of eth0 is not persisted"* ]]
	run -0 --separate-stderr sysctl -p "$f"	# every line accepted
	[ -z "$stderr" ]
	sysctl -qw net.core.rmem_max=212992
	# the host's other sysctl.d files may name keys this guest lacks: judge ours only
	run --separate-stderr sysctl --system
	[[ "$output" == *"* Applying $f ..."* ]]
	[[ "$stderr" != *net.core.[rw]mem* ]]
	[ "$(sysctl -n net.core.rmem_max)" = 16777216 ]
	run -0 "$RXECTL" tune --revert
	[[ "$output" == *"removed $f"* ]]
	[ ! -e "$f" ]
}

@test "--persist writes mtu = into the netdev's section of rxe.conf, every other byte kept; --revert puts the file back" {
	printf '# rxe.conf: keep this comment\n[global]\ntune = no   ; not at boot\n\n[eth0]\t; the wire\nname = rxe_eth0 ; inline\n\n; about eth1\n[eth1]\n' > "$RXECTL_CONFIG"
	cp "$RXECTL_CONFIG" "$BATS_TEST_TMPDIR/orig"
	printf '# rxe.conf: keep this comment\n[global]\ntune = no   ; not at boot\n\n[eth0]\t; the wire\nmtu = 9000\nname = rxe_eth0 ; inline\n\n; about eth1\n[eth1]\n' > "$BATS_TEST_TMPDIR/want"
	run -0 --separate-stderr "$RXECTL" tune eth0 --apply --persist
	[[ "$output" == *"wrote mtu = 9000 under [eth0] in $RXECTL_CONFIG (\`up\` and the units apply it)"* ]]
	[[ "$stderr" != *"not persisted"* ]]
	diff "$BATS_TEST_TMPDIR/want" "$RXECTL_CONFIG"
	# and up takes it: back to 1500 (as after a reboot), up sets 9000 again
	ip link set eth0 mtu 1500
	run -0 --separate-stderr "$RXECTL" up eth0
	[[ "$stderr" == *"set the MTU of eth0 from 1500 to 9000, as $RXECTL_CONFIG line 6 says"* ]]
	[ "$(cat /sys/class/net/eth0/mtu)" = 9000 ]
	run -0 "$RXECTL" tune --revert
	[[ "$output" == *"restored mtu = under [eth0] in $RXECTL_CONFIG: 9000 -> (none: the line is removed)"* ]]
	cmp "$BATS_TEST_TMPDIR/orig" "$RXECTL_CONFIG"
	[ "$(cat /sys/class/net/eth0/mtu)" = 1500 ]
}

@test "--persist replaces an mtu = the section has, and --revert gives its old value back" {
	printf '[eth0]\nmtu = 1500 # the default\n' > "$RXECTL_CONFIG"
	run -0 --separate-stderr "$RXECTL" tune eth0 --apply --persist --json
	[ "$(jq -c .config_mtu <<<"$output")" = "{\"path\":\"$RXECTL_CONFIG\",\"section\":\"eth0\",\"mtu\":9000,\"was\":\"1500\"}" ]
	[ "$(cat "$RXECTL_CONFIG")" = $'[eth0]\nmtu = 9000' ]
	run -0 --separate-stderr "$RXECTL" tune --revert --json
	[ "$(jq -c '.restored[] | select(.section)' <<<"$output")" = "{\"path\":\"$RXECTL_CONFIG\",\"section\":\"eth0\",\"from\":\"9000\",\"to\":\"1500\"}" ]
	[ "$(cat "$RXECTL_CONFIG")" = $'[eth0]\nmtu = 1500' ]
}

@test "--persist declares nothing: a netdev without a section gets the line to add, and a broken rxe.conf is not touched" {
	printf '# nothing declared\n' > "$RXECTL_CONFIG"
	run -0 --separate-stderr "$RXECTL" tune eth0 --apply --persist
	[[ "$stderr" == *"the MTU of eth0 is not persisted: $RXECTL_CONFIG declares no [eth0] section, and tune declares no netdev; add \`mtu = 9000\` under [eth0]"* ]]
	[ "$(cat "$RXECTL_CONFIG")" = '# nothing declared' ]
	"$RXECTL" tune --revert >/dev/null
	printf '[eth0]\nspeed = 10\n' > "$RXECTL_CONFIG"
	before=$(snapshot)
	run -2 --separate-stderr "$RXECTL" tune eth0 --apply --persist
	[[ "$stderr" == "rxectl: $RXECTL_CONFIG:2: unknown key 'speed'"* ]]
	[ "$(cat "$RXECTL_CONFIG")" = $'[eth0]\nspeed = 10' ]
	[ "$(snapshot)" = "$before" ]	# checked before --apply changed anything
	[ ! -e /run/rxectl/tune.state ]
}

@test "tune rejects bad input" {
	run -2 "$RXECTL" tune eth0 --persist
	[[ "$output" == "rxectl: --persist goes with --apply: it keeps what --apply changes."* ]]
	run -2 "$RXECTL" tune --apply --revert
	[[ "$output" == "rxectl: --revert undoes --apply; give one of them."* ]]
	run -2 "$RXECTL" tune eth0 --from-config
	[[ "$output" == "rxectl: --from-config goes with --apply alone"* ]]
	run -2 "$RXECTL" tune eth0 lo
	run -2 "$RXECTL" tune 'bad name!'
	run -1 "$RXECTL" tune nosuch0
	[ "$output" = "rxectl: netdev nosuch0 does not exist; check the name with \`ip link\`." ]
	run -2 "$RXECTL" tune	# no rxe device, nothing configured: which netdev?
	[[ "$output" == "rxectl: name the netdev to tune"* ]]
}
