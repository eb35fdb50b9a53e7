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
	[[ "$output" == *"unknown option '--name' for disable."* ]]
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

@test "enable refuses a device name another netdev already has" {
	run -2 "$RXECTL" enable eth0 --name roce1
	[[ "$output" == *"the device name roce1 is already given to eth1"* ]]
	! grep -q eth0 "$RXECTL_CONFIG"
}

@test "enable creates a missing config file" {
	no_systemd
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR/new/rxe.conf"
	run -0 "$RXECTL" enable eth0
	[ "$(cat "$RXECTL_CONFIG")" = "[eth0]" ]
}

@test "enable and disable leave a malformed file alone and exit 2" {
	printf '[eth0]\nmtu = 9000\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" enable eth1
	[[ "$output" == *"rxe.conf:2: unknown key 'mtu'"* ]]
	[[ "$output" == *"was not changed; fix the line above first."* ]]
	run -2 "$RXECTL" disable eth0
	[ "$(cat "$RXECTL_CONFIG")" = "$(printf '[eth0]\nmtu = 9000')" ]
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

@test "enable and disable have no JSON output and say where the state is" {
	run -2 "$RXECTL" --json enable eth0
	[[ "$output" == *"enable has no JSON output; \`rxectl status --json\` shows the state afterwards."* ]]
	run -2 "$RXECTL" --json disable eth1
	! grep -q eth0 "$RXECTL_CONFIG"
	grep -q eth1 "$RXECTL_CONFIG"
}
