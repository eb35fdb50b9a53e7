#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# enable/disable/udev-env/monitor on the host: arguments, exit codes, and how rxe.conf is edited.
# Where systemd is not PID 1 (this host, containers), enable/disable only edit the file.

bats_require_minimum_version 1.5.0

setup() {
	RXECTL="$BATS_TEST_DIRNAME/../../rxectl"
	[ -x "$RXECTL" ] || skip "build rxectl first (make)"
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR/rxe.conf"
	printf '# keep me\n[eth1]\nname = roce1 ; the storage port\n' > "$RXECTL_CONFIG"
}

no_systemd() {
	[ -d /run/systemd/system ] && skip "systemd runs here: enable would change real units"
	return 0
}

@test "--help lists enable, disable, monitor and udev-env" {
	run -0 "$RXECTL" --help
	[[ "$output" == *"  enable "* ]]
	[[ "$output" == *"  disable "* ]]
	[[ "$output" == *"  monitor "* ]]
	[[ "$output" == *"  udev-env "* ]]
}

@test "enable without a netdev is a usage error with the usage line" {
	run -2 "$RXECTL" enable
	[[ "$output" == *"rxectl: say which NETDEV to enable."* ]]
	[[ "$output" == *"usage: rxectl enable NETDEV [--name NAME] [--now]"* ]]
}

@test "enable with two netdevs is a usage error naming the extra one" {
	run -2 "$RXECTL" enable eth0 eth2
	[[ "$output" == *"enable takes one NETDEV, but also got 'eth2'."* ]]
}

@test "enable rejects an invalid netdev name and an invalid device name" {
	run -2 "$RXECTL" enable abcdefghijklmnop
	[[ "$output" == *"netdev name 'abcdefghijklmnop'"* ]]
	run -2 "$RXECTL" enable eth0 --name 'bad name'
	[[ "$output" == *"device name 'bad name'"* ]]
}

@test "disable has no --name option" {
	run -2 "$RXECTL" disable eth1 --name x
	[[ "$output" == *"unknown option '--name' for disable;"* ]]
}

@test "enable appends the netdev and keeps comments and other sections" {
	no_systemd
	run -0 "$RXECTL" enable eth0 --name roce0
	[[ "$output" == *"eth0 is now declared in $RXECTL_CONFIG."* ]]
	[[ "$output" == *"systemd is not running, so no unit was enabled"* ]]
	[ "$(cat "$RXECTL_CONFIG")" = "$(printf '# keep me\n[eth1]\nname = roce1 ; the storage port\n\n[eth0]\nname = roce0')" ]
}

@test "enable of a netdev already declared changes nothing" {
	no_systemd
	before=$(stat -c %i "$RXECTL_CONFIG")
	run -0 "$RXECTL" enable eth1
	[[ "$output" == *"eth1 was already declared in $RXECTL_CONFIG."* ]]
	[ "$(stat -c %i "$RXECTL_CONFIG")" = "$before" ]
}

@test "enable without --name refuses a default name another netdev already has, or an invalid one" {
	printf '[eth1]\nname = rxe_eth0\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" enable eth0
	[[ "$output" == *"the device name rxe_eth0 is already given to eth1"* ]]
	run -2 "$RXECTL" enable 'vlan@x'
	[[ "$output" == *"the default device name of vlan@x, rxe_vlan@x, may only contain"*"--name"* ]]
	[ "$(cat "$RXECTL_CONFIG")" = "$(printf '[eth1]\nname = rxe_eth0')" ]
}

@test "enable refuses a device name another netdev already has" {
	run -2 "$RXECTL" enable eth0 --name roce1
	[[ "$output" == *"the device name roce1 is already given to eth1"* ]]
	! grep -q eth0 "$RXECTL_CONFIG"
}

@test "enable on a mistyped -c path is an error and creates neither file nor directory" {
	unset RXECTL_CONFIG
	run -2 "$RXECTL" -c "$BATS_TEST_TMPDIR/new/rxe.cnf" enable eth0
	[[ "$output" == *"the configuration file $BATS_TEST_TMPDIR/new/rxe.cnf does not exist"* ]]
	[[ "$output" == *"touch $BATS_TEST_TMPDIR/new/rxe.cnf"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/new" ]
	run -2 "$RXECTL" -c "$BATS_TEST_TMPDIR/rxe.cnf" disable eth0
	[ ! -e "$BATS_TEST_TMPDIR/rxe.cnf" ]
}

@test "enable fills an empty file created on purpose" {
	no_systemd
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR/new.conf"
	touch "$RXECTL_CONFIG"
	run -0 "$RXECTL" enable eth0
	[ "$(cat "$RXECTL_CONFIG")" = "[eth0]" ]
}

@test "ten parallel enables keep all ten sections" {
	no_systemd
	: > "$RXECTL_CONFIG"
	for i in 0 1 2 3 4 5 6 7 8 9; do
		"$RXECTL" enable "eth$i" > "$BATS_TEST_TMPDIR/out.$i" 2>&1 &
	done
	wait
	for i in 0 1 2 3 4 5 6 7 8 9; do
		grep -qx "\[eth$i\]" "$RXECTL_CONFIG" || { cat "$RXECTL_CONFIG"; false; }
	done
	[ "$(grep -c '^\[' "$RXECTL_CONFIG")" = 10 ]
	run -0 "$RXECTL" udev-env eth7
	[[ "$output" == *"RXE_NAME=rxe_eth7"* ]]
}

@test "parallel enables and disables lose no edit" {
	no_systemd
	printf '[eth0]
[eth1]
[eth2]
[eth3]
[eth4]
' > "$RXECTL_CONFIG"
	for i in 0 1 2 3 4; do
		"$RXECTL" disable "eth$i" > /dev/null 2>&1 &
		"$RXECTL" enable "eth$((i + 5))" > /dev/null 2>&1 &
	done
	wait
	[ "$(grep '^\[' "$RXECTL_CONFIG" | sort | tr '\n' ' ')" = "[eth5] [eth6] [eth7] [eth8] [eth9] " ]
}

@test "enable refuses a file with a line over 1024 bytes, naming its line, and changes nothing" {
	{ printf '[eth1]
# '; head -c 1100 /dev/zero | tr '\0' x; printf '\n'; } > "$RXECTL_CONFIG"
	cp "$RXECTL_CONFIG" "$BATS_TEST_TMPDIR/before"
	run -2 "$RXECTL" enable eth0
	[[ "$output" == *"rxe.conf:2: this line is longer than 1024 bytes"* ]]
	cmp "$RXECTL_CONFIG" "$BATS_TEST_TMPDIR/before"
}

@test "a NUL byte in the file is an error at its line for status, enable and udev-env, not the file's end" {
	# read up to the NUL, the file would be [eth1] only: valid, so every reader must see it whole
	printf '[eth1]\n# a\0b\n[eth2]\n' > "$RXECTL_CONFIG"
	cp "$RXECTL_CONFIG" "$BATS_TEST_TMPDIR/before"
	run -2 "$RXECTL" status
	[[ "$output" == *"rxe.conf:2: this line contains a NUL byte"* ]]
	run -2 "$RXECTL" enable eth0
	[[ "$output" == *"rxe.conf:2: this line contains a NUL byte"* ]]
	cmp "$RXECTL_CONFIG" "$BATS_TEST_TMPDIR/before"
	run -0 --separate-stderr "$RXECTL" udev-env eth1
	[ -z "$output" ]
	[[ "$stderr" == *"rxe.conf:2: this line contains a NUL byte"* ]]
}

@test "a commented-out 'name = evil' after a 196-byte comment stays a comment" {
	{ printf '[eth1]
# '; head -c 196 /dev/zero | tr '\0' x; printf ' name = evil\n'; } > "$RXECTL_CONFIG"
	run -0 "$RXECTL" udev-env eth1
	[ "$output" = "$(printf 'RXE_MANAGED=1\nRXE_NAME=rxe_eth1\nRXE_UNIT=rxe@eth1.service')" ]
}

@test "a config path that is a directory is an error (exit 2) for status, up, enable and udev-env" {
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR"
	run -2 "$RXECTL" status
	[[ "$output" == *"cannot read $BATS_TEST_TMPDIR: it is a directory"* ]]
	# up read a directory as an empty file: "nothing declared", exit 0
	run -2 "$RXECTL" up
	[[ "$output" == *"cannot read $BATS_TEST_TMPDIR: it is a directory"* ]]
	run -2 "$RXECTL" enable eth0
	[[ "$output" == *"cannot read $BATS_TEST_TMPDIR: it is a directory"* ]]
	run -0 --separate-stderr "$RXECTL" udev-env eth0
	[ -z "$output" ]
	[[ "$stderr" == *"it is a directory"* ]]
}

@test "an unreadable config file is an error (exit 2) naming the reason" {
	# /proc/self/mem cannot be read at offset 0, even by root
	run -2 "$RXECTL" -c /proc/self/mem status
	[[ "$output" == *"cannot read /proc/self/mem: Input/output error."* ]]
}

@test "enable and disable leave a malformed file alone and exit 2" {
	printf '[eth0]\nspeed = 9000\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" enable eth1
	[[ "$output" == *"rxe.conf:2: unknown key 'speed'"* ]]
	[[ "$output" == *"was not changed; fix the line above first."* ]]
	run -2 "$RXECTL" disable eth0
	[ "$(cat "$RXECTL_CONFIG")" = "$(printf '[eth0]\nspeed = 9000')" ]
}

@test "disable removes the section and keeps the rest" {
	no_systemd
	printf '# keep me\n[eth0]\n\n[eth1]\nname = roce1\n' > "$RXECTL_CONFIG"
	run -0 "$RXECTL" disable eth0
	[[ "$output" == *"eth0 is no longer declared in $RXECTL_CONFIG."* ]]
	[ "$(cat "$RXECTL_CONFIG")" = "$(printf '# keep me\n\n[eth1]\nname = roce1')" ]
}

@test "disable of a netdev that is not declared exits 0 and changes nothing" {
	no_systemd
	run -0 "$RXECTL" disable eth7
	[[ "$output" == *"eth7 was not declared in $RXECTL_CONFIG."* ]]
}

@test "enable into an unwritable directory fails with exit 1 and says to run as root" {
	no_systemd
	[ "$(id -u)" != 0 ] || skip "root can write anywhere"
	export RXECTL_CONFIG=/proc/rxe.conf
	run -1 "$RXECTL" enable eth0
	[[ "$output" == *"cannot write /proc/rxe.conf"* ]]
}

@test "udev-env prints the udev lines for a declared netdev" {
	run -0 "$RXECTL" udev-env eth1
	[ "$output" = "$(printf 'RXE_MANAGED=1\nRXE_NAME=roce1\nRXE_UNIT=rxe@eth1.service')" ]
}

@test "udev-env escapes the unit instance as systemd-escape does" {
	printf '[br-lan]\n' > "$RXECTL_CONFIG"
	run -0 "$RXECTL" udev-env br-lan
	[[ "$output" == *'RXE_UNIT=rxe@br\x2dlan.service'* ]]
}

@test "udev-env prints nothing for a netdev that is not declared" {
	run -0 "$RXECTL" udev-env eth0
	[ -z "$output" ]
}

@test "udev-env exits 0 with a malformed config file, so udev is never held up" {
	printf '[eth0\n' > "$RXECTL_CONFIG"
	run -0 --separate-stderr "$RXECTL" udev-env eth0
	[ -z "$output" ]
	[[ "$stderr" == *"rxectl: "* ]]
}

@test "udev-env needs exactly one netdev" {
	run -2 "$RXECTL" udev-env
	[[ "$output" == *"udev-env takes exactly one NETDEV."* ]]
}

@test "monitor takes no arguments and has no JSON output" {
	run -2 "$RXECTL" monitor eth0
	[[ "$output" == *"monitor takes no arguments, but got 'eth0'."* ]]
	run -2 "$RXECTL" --json monitor
	[[ "$output" == *"monitor logs what it does; it has no JSON output."* ]]
}


@test "enable and disable keep [global] and mtu lines, and refuse to take [global] for a netdev" {
	no_systemd
	printf '[global]\ndriver = bundled\ntune = no\n\n[eth1]\nmtu = 9000\n' > "$RXECTL_CONFIG"
	run -0 "$RXECTL" enable eth0 --name roce0
	[ "$(cat "$RXECTL_CONFIG")" = "$(printf '[global]\ndriver = bundled\ntune = no\n\n[eth1]\nmtu = 9000\n\n[eth0]\nname = roce0')" ]
	run -0 "$RXECTL" disable eth0
	[ "$(cat "$RXECTL_CONFIG")" = "$(printf '[global]\ndriver = bundled\ntune = no\n\n[eth1]\nmtu = 9000')" ]
	for cmd in enable disable; do
		run -2 "$RXECTL" "$cmd" global
		[[ "$output" == *"[global] is rxe.conf's section of settings, not a netdev, so $cmd cannot $cmd it"* ]]
	done
	[ "$(cat "$RXECTL_CONFIG")" = "$(printf '[global]\ndriver = bundled\ntune = no\n\n[eth1]\nmtu = 9000')" ]
}

@test "a bad mtu or driver value stops every command with its file:line" {
	printf '[global]\ndriver = fastest\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" status
	[[ "$output" == *"$RXECTL_CONFIG:2: in [global], driver 'fastest' is not a driver: use auto, kernel (or stock) or bundled."* ]]
	printf '[eth0]\nmtu = 9000 bytes\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" up
	[[ "$output" == *"$RXECTL_CONFIG:2: in [eth0], mtu '9000 bytes' is not an MTU"* ]]
	# udev-env says why and leaves the netdev unmanaged (exit 0: udev ignores failures)
	run -0 "$RXECTL" udev-env eth0
	[[ "$output" == *"is not an MTU"* && "$output" != *RXE_MANAGED=1* ]]
	run -2 "$RXECTL" enable eth1
	[[ "$output" == *"was not changed"* ]]
}

@test "etc/rxe.conf's commented examples, uncommented, are a valid file" {
	sed 's/^# \(\[\|name\|mtu\|driver\|tune\)/\1/' "$BATS_TEST_DIRNAME/../../etc/rxe.conf" > "$RXECTL_CONFIG"
	grep -q '^mtu = 9000' "$RXECTL_CONFIG"
	grep -q '^\[global\]' "$RXECTL_CONFIG"
	run -0 --separate-stderr "$RXECTL" udev-env eth0
	[ -z "$stderr" ]
	[[ "$output" == *"RXE_NAME=rxe_eth0"* ]]
}
