#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The CLI as a hostile tester uses it (issue 37): --json after a bad option, numbers with spaces
# or hex, bytes that are not UTF-8, files at and over the size limit, FIFOs, a held edit lock,
# leftovers of killed edits, read-only and immutable files, and docs that show refused usage.

bats_require_minimum_version 1.5.0

setup() {
	TOP="$BATS_TEST_DIRNAME/../.."
	RXECTL="$TOP/rxectl"
	[ -x "$RXECTL" ] || skip "build rxectl first (make)"
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR/rxe.conf"
	printf '[lo]\n' > "$RXECTL_CONFIG"
}

no_systemd() {
	[ -d /run/systemd/system ] && skip "systemd runs here: enable would change real units"
	return 0
}

# json_doc CODE ARGS...: rxectl exits CODE and prints exactly one JSON document on stdout;
# $msg gets its error message.
json_doc() {
	local code=$1; shift
	run --separate-stderr "$RXECTL" "$@"
	echo "exit $status; stdout: $output; stderr: $stderr"
	[ "$status" -eq "$code" ]
	[ "$(jq -s length <<< "$output")" -eq 1 ]
	msg=$(jq -r '.error.message // empty' <<< "$output")
}

# the bytes are UTF-8 and one JSON document (python3's decoder is strict; jq's is not)
strict_json() {
	python3 -c 'import json, sys; json.loads(sys.stdin.buffer.read().decode("utf-8"))'
}

@test "--json after a bad option still gets the one JSON document (status --bogus --json)" {
	json_doc 2 status --bogus --json
	[[ "$msg" == *"unknown option '--bogus'"* ]]
	json_doc 2 stats --watch 0 --json
	[[ "$msg" == *"--watch needs a number of seconds"* ]]
	json_doc 2 up lo --wait x -vj
	[[ "$msg" == *"--wait needs a whole number"* ]]
	json_doc 2 --bogus status --json
	# a value that happens to read "--json" is a value, not the flag
	run --separate-stderr "$RXECTL" up lo --name --json --wait x
	[ "$status" -eq 2 ]
	[ -z "$output" ]
}

@test "--version takes no arguments, and a failed write of it is exit 1" {
	run -2 "$RXECTL" --version extra
	[[ "$output" == *"--version takes no arguments, but got 'extra'"* ]]
	run "$RXECTL" --version
	[ "$status" -eq 0 ]
	run -1 bash -c '"$1" --version > /dev/full' _ "$RXECTL"
	[[ "$output" == *"cannot write the version"* ]]
}

@test "--wait and --watch take plain decimal numbers: no space, sign, hex or exponent" {
	local v
	for v in ' 5' '+5' '5 ' 0x5 -0 ''; do
		run -2 "$RXECTL" up lo --wait "$v"
		[[ "$output" == *"--wait needs a whole number of seconds from 0 to 3600, not '$v'"* ]]
	done
	for v in 0x1 ' 1' 1e1 inf nan +1 . '1.' 0x1p0; do
		run -2 "$RXECTL" stats --watch "$v"
		[[ "$output" == *"--watch needs a number of seconds from 0.1 to 3600, not '$v'"* ]]
	done
	# plain numbers pass the parser (what fails after is the kernel, not the input)
	run "$RXECTL" stats --watch 0.5
	[ "$status" -ne 2 ]
	run "$RXECTL" up nosuchdev0 --wait 5
	[ "$status" -ne 2 ]
}

@test "bytes that are not UTF-8 never reach the JSON document raw" {
	printf '[lo]\nname = r\xff\xfe\n' > "$RXECTL_CONFIG"
	json_doc 2 status --json
	strict_json <<< "$output"
	[[ "$msg" == *'r\xff\xfe'* ]]
	# from the command line: a netdev name with a lone continuation byte and an overlong '/'
	run --separate-stderr "$RXECTL" up $'e\x80th\xc0\xaf' --json
	echo "$output"
	strict_json <<< "$output"
	[[ "$output" == *'\\x80'* ]]
	[[ "$output" == *'\\xc0\\xaf'* ]]
	# valid UTF-8 passes as it is
	json_doc 2 -c "$BATS_TEST_TMPDIR/ré.conf" status --json
	strict_json <<< "$output"
	[[ "$msg" == *"/ré.conf does not exist"* ]]
}

@test "exit 3 in JSON names the netdev that is not there, not 'the other members say why'" {
	json_doc 3 up nosuchdev0 --json
	[ "$(jq '.devices | length' <<< "$output")" -eq 0 ]
	[[ "$msg" == *"netdev nosuchdev0 does not exist"* ]]
}

@test "udev-env --json with a malformed config prints {\"managed\": false}, exit 0" {
	printf '[lo\n' > "$RXECTL_CONFIG"
	run -0 --separate-stderr "$RXECTL" udev-env lo --json
	[ "$(jq -c . <<< "$output")" = '{"managed":false}' ]
	[[ "$stderr" == *"a section header needs a closing ']'"* ]]
}

# pad FILE BYTES: FILE declares [lo] and is padded with comment lines to exactly BYTES bytes
pad() {
	python3 - "$1" "$2" <<-'EOF'
	import sys
	path, size = sys.argv[1], int(sys.argv[2])
	head = b"[lo]\n"
	line = b"#" + b"x" * 1000 + b"\n"
	body = line * ((size - len(head)) // len(line))
	rest = size - len(head) - len(body)
	tail = (b"#" + b"x" * (rest - 2) + b"\n") if rest >= 2 else b"\n" * rest
	open(path, "wb").write(head + body + tail)
	EOF
	[ "$(stat -c %s "$1")" -eq "$2" ]
}

@test "a config of exactly 1 MiB is read; one byte more is refused" {
	pad "$RXECTL_CONFIG" 1048576
	run -0 "$RXECTL" udev-env lo
	[[ "$output" == *"RXE_MANAGED=1"* ]]
	pad "$RXECTL_CONFIG" 1048577
	run -0 "$RXECTL" udev-env lo
	[[ "$output" == *"it is larger than 1 MiB"* ]]
	[[ "$output" != *"RXE_MANAGED=1"* ]]
}

@test "enable does not write a config over 1 MiB (which rxectl would then refuse to read)" {
	no_systemd
	pad "$RXECTL_CONFIG" 1048570
	cp "$RXECTL_CONFIG" "$BATS_TEST_TMPDIR/before"
	run -1 "$RXECTL" enable eth1
	[[ "$output" == *"cannot write $RXECTL_CONFIG: the edited file would be larger than 1 MiB"* ]]
	cmp "$RXECTL_CONFIG" "$BATS_TEST_TMPDIR/before"
	run -0 "$RXECTL" udev-env lo
	[[ "$output" == *"RXE_MANAGED=1"* ]]
	# and disable still shrinks it
	run -0 "$RXECTL" disable lo
	run -0 "$RXECTL" udev-env lo
	[ -z "$output" ]
}

@test "a FIFO as the config is refused at once instead of hanging every command" {
	rm -f "$RXECTL_CONFIG"
	mkfifo "$RXECTL_CONFIG"
	run -2 timeout 10 "$RXECTL" status
	[[ "$output" == *"cannot read $RXECTL_CONFIG: it is not a regular file"* ]]
	run -0 timeout 10 "$RXECTL" udev-env lo
	[[ "$output" == *"it is not a regular file"* ]]
	no_systemd
	run -2 timeout 10 "$RXECTL" enable eth1
	[[ "$output" == *"it is not a regular file"* ]]
}

@test "a temporary file left by an edit killed mid-write is removed by the next edit" {
	no_systemd
	local dir=$BATS_TEST_TMPDIR
	echo '[half' > "$dir/.rxe.conf.Ab12Z9"
	echo 'mine' > "$dir/.rxe.conf.swp"	# not ours: stays
	run -0 "$RXECTL" enable eth1
	[ ! -e "$dir/.rxe.conf.Ab12Z9" ]
	[ -e "$dir/.rxe.conf.swp" ]
	run -0 find "$dir" -maxdepth 1 -name '.rxe.conf.??????'
	[ -z "$output" ]
}

@test "an edit waits for the edit lock with a message, and gives up after 10 s" {
	no_systemd
	local dir=$BATS_TEST_TMPDIR
	flock "$dir" sleep 2 &
	sleep 0.5
	run -0 "$RXECTL" enable eth1
	[[ "$output" == *"waiting for another rxectl to finish editing $RXECTL_CONFIG (up to 10 s)"* ]]
	wait
	flock "$dir" sleep 30 &
	local holder=$!
	sleep 0.5
	SECONDS=0
	run -1 timeout 20 "$RXECTL" disable eth1
	local took=$SECONDS
	kill "$holder" 2>/dev/null || true
	pkill -P "$holder" sleep 2>/dev/null || true
	echo "took $took s: $output"
	[[ "$output" == *"has been editing it for 10 s"* ]]
	[ "$took" -ge 9 ] && [ "$took" -le 15 ]
	grep -q '^\[eth1\]' "$RXECTL_CONFIG"
}

@test "on a read-only file system root is told so, not to run as root" {
	no_systemd
	[ "$(id -u)" -eq 0 ] || skip "needs root (a mount namespace)"
	command -v unshare > /dev/null || skip "no unshare"
	local dir=$BATS_TEST_TMPDIR/ro
	mkdir "$dir"
	printf '[lo]\n' > "$dir/rxe.conf"
	run unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" &&
		"$2" -c "$1/rxe.conf" enable eth1' _ "$dir" "$RXECTL"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Read-only file system; its file system is mounted read-only"* ]]
	[[ "$output" != *"as root"* ]]
}

@test "on an immutable config root is told it is immutable, not to run as root" {
	no_systemd
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	chattr +i "$RXECTL_CONFIG" 2> /dev/null || skip "this file system has no immutable flag"
	run "$RXECTL" enable eth1
	chattr -i "$RXECTL_CONFIG"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"immutable"*"chattr -i"* ]]
	[[ "$output" != *"as root"* ]]
	[ "$(cat "$RXECTL_CONFIG")" = "[lo]" ]
}

@test "tune --revert takes no netdev, and no usage line offers one with it" {
	run -2 "$RXECTL" tune lo --revert
	# README, --help and rxectl(8) put --revert beside the netdev form, not inside it
	run -0 grep -E '^rxectl tune .*--revert' "$TOP/README.md"
	[[ "$output" != *"eth0"* && "$output" != *"NETDEV"* ]]
	run -0 "$RXECTL" tune --help
	[[ "$output" == *"usage: rxectl tune [NETDEV] [--apply [--persist | --from-config]] | --revert"* ]]
	run -0 grep -F '\fBtune\fR [' "$TOP/man/rxectl.8"
	[[ "$output" == *'\fB\-\-from\-config\fR]] | \fB\-\-revert\fR'* ]]
}

@test "rxectl(8) DIAGNOSTICS quotes the unknown-key message rxectl prints" {
	printf '[eth0]\nname = r0\nspeed = 1\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" status
	local said=${output#rxectl: }
	said=${said%%$'\n'*}
	said=${said//$RXECTL_CONFIG/\/etc\/rxe\/rxe.conf}
	# the DIAGNOSTICS entry as one line, troff's .B and fonts removed
	local man
	man=$(sed -n '/^Malformed configuration/,/^\.PP/p' "$TOP/man/rxectl.8" | sed '1d;$d' |
		sed 's/^\.B //; s/\\f[BRI]//g' | tr '\n' ' ' | sed 's/ *$//')
	echo "rxectl: $said"
	echo "man:    $man"
	[ "$man" = "rxectl: $said" ]
}

@test "no fix text says \`make driver\` installs the driver (it only builds it)" {
	run grep -nE 'install[^.;]*(`|\\fB)make driver' "$TOP"/cli/*.c "$TOP"/man/*.8
	echo "$output"
	[ "$status" -eq 1 ]
	run grep -n 'make driver' "$TOP"/cli/*.c
	[ "$status" -eq 1 ]
}
