#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The one option parser (cli/opts.c): errors name the argument as given, global options before
# or after the command, ping's -c, no undocumented short options, every option documented.

bats_require_minimum_version 1.5.0

# every command of the table, as --help lists it (a new command is checked without editing this)
COMMANDS=$("$BATS_TEST_DIRNAME/../../rxectl" --help 2>/dev/null | sed -n '/^Commands:/,/^$/p' |
	awk 'NF > 1 { print $1 }' | tr '\n' ' ')

setup() {
	RXECTL="$BATS_TEST_DIRNAME/../../rxectl"
	MAN="$BATS_TEST_DIRNAME/../../man/rxectl.8"
	[ -x "$RXECTL" ] || skip "build rxectl first (make)"
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR/rxe.conf"
	printf '[lo]\n' > "$RXECTL_CONFIG"
}

@test "an option error names the argument as written: up -eth0" {
	run -2 "$RXECTL" up -eth0
	[[ "$output" == *"rxectl: unknown option '-eth0' for up; \`rxectl up --help\` lists its options."* ]]
	[[ "$output" == *"usage: rxectl up "* ]]
}

@test "a missing value names the option and what it takes" {
	run -2 "$RXECTL" up lo --wait
	[[ "$output" == *"option --wait needs a value (SECONDS)."* ]]
	run -2 "$RXECTL" status --json=yes
	[[ "$output" == *"option --json takes no value, but got 'yes'."* ]]
}

@test "-c works before and after the command, also as --config=FILE" {
	for args in "-c $BATS_TEST_TMPDIR/no.conf status" "status -c $BATS_TEST_TMPDIR/no.conf" \
		    "status --config=$BATS_TEST_TMPDIR/no.conf" "udev-env lo --config $BATS_TEST_TMPDIR/no.conf"; do
		# shellcheck disable=SC2086
		run "$RXECTL" $args
		[[ "$output" == *"the configuration file $BATS_TEST_TMPDIR/no.conf does not exist"* ]]
	done
}

@test "-c after the command reads that file" {
	printf '[eth5]\nname = r5\n' > "$BATS_TEST_TMPDIR/other.conf"
	run -0 "$RXECTL" udev-env eth5 -c "$BATS_TEST_TMPDIR/other.conf"
	[[ "$output" == *"RXE_NAME=r5"* ]]
}

@test "--json and -v are accepted after the command, and flags cluster" {
	run -0 "$RXECTL" udev-env lo --json
	[ "$(jq -r .name <<< "$output")" = rxe_lo ]
	run -0 "$RXECTL" udev-env -jv lo
	[ "$(jq -r .name <<< "$output")" = rxe_lo ]
}

@test "ping -c N is the count, as in ping(8); --config still names the file there" {
	run -2 "$RXECTL" ping -c 0 192.0.2.9
	[[ "$output" == *"-c takes a number from 1 to 1000000, not '0'."* ]]
	run -2 "$RXECTL" ping -c3
	[[ "$output" == *"give the HOST to ping"* ]]
	run -2 "$RXECTL" ping 192.0.2.9 --config "$BATS_TEST_TMPDIR/no.conf" --count=x
	[[ "$output" == *"--count takes a number"* ]]
}

@test "ping -c 3 HOST gets past the options (it fails later, not as bad input)" {
	run "$RXECTL" ping -c 3 --timeout 1 192.0.2.9
	[ "$status" -ne 2 ]
}

@test "-- ends the options" {
	run -2 "$RXECTL" udev-env -x
	[[ "$output" == *"unknown option '-x' for udev-env"* ]]
	run -0 "$RXECTL" udev-env -- -x
	[ -z "$output" ]
	run -0 "$RXECTL" udev-env -- lo
	[[ "$output" == *"RXE_NAME=rxe_lo"* ]]
}

# The short options a command's --help lists.
listed_shorts() {
	"$RXECTL" "$1" --help | sed -n 's/^  -\([a-zA-Z]\), --.*/\1/p' | tr -d '\n'
}

@test "the option checks below see every command of the table" {
	[ "$(wc -w <<< "$COMMANDS")" -ge 16 ]
	for cmd in up tune help; do [[ " $COMMANDS " == *" $cmd "* ]]; done
}

@test "no command takes a short option its --help does not list" {
	for cmd in $COMMANDS; do
		shorts=$(listed_shorts "$cmd")
		for l in {a..z} {A..Z}; do
			[[ "$shorts" == *"$l"* ]] && continue
			run "$RXECTL" "$cmd" "-$l"
			[ "$status" -eq 2 ] || { echo "$cmd -$l exited $status"; false; }
			[[ "$output" == *"unknown option '-$l' for $cmd"* ]] || { echo "$cmd -$l: $output"; false; }
		done
	done
}

@test "every option in a command's --help is in rxectl(8), and every default is shown" {
	for cmd in $COMMANDS; do
		while read -r opt; do
			grep -q -- "${opt//-/\\\\-}" "$MAN" || { echo "$cmd $opt is not in rxectl(8)"; false; }
		done < <("$RXECTL" "$cmd" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
	done
	run -0 "$RXECTL" ping --help
	[[ "$output" == *"--port P"*"(default: 7174)"* ]]
	[[ "$output" == *"-c, --count N"*"(default: 10)"* ]]
	run -0 "$RXECTL" up --help
	[[ "$output" == *"--wait SECONDS"*"(default: 10)"* ]]
}

@test "--help lists every global option with -c's default" {
	run -0 "$RXECTL" --help
	[[ "$output" == *"-c, --config FILE"*"(default: /etc/rxe/rxe.conf)"* ]]
	[[ "$output" == *"--version"* ]]
}

@test "stats, debug and tune list their own options in --help and take -c after the command" {
	run -0 "$RXECTL" stats --help
	[[ "$output" == *"    --watch SECONDS"* ]]
	run -0 "$RXECTL" tune --help
	[[ "$output" == *"--apply"*"--persist"*"--revert"* ]]
	run -2 "$RXECTL" stats --watch=0
	[[ "$output" == *"--watch needs a number of seconds from 0.1 to 3600, not '0'."* ]]
	run -2 "$RXECTL" stats --watch
	[[ "$output" == *"option --watch needs a value (SECONDS)."* ]]
	run -2 "$RXECTL" tune --apply=yes
	[[ "$output" == *"option --apply takes no value, but got 'yes'."* ]]
	run -2 "$RXECTL" debug -eth0
	[[ "$output" == *"unknown option '-eth0' for debug"* ]]
	# -c after the command is the global option: a missing file is named
	run -2 "$RXECTL" tune -c "$BATS_TEST_TMPDIR/no.conf"
	[[ "$output" == *"the configuration file $BATS_TEST_TMPDIR/no.conf does not exist"* ]]
}

@test "one option parser: no getopt(3) anywhere in cli/ (every command parses with opts.c)" {
	run grep -l -E '\bgetopt(_long)?\(|\boptind\b|\boptarg\b' "$BATS_TEST_DIRNAME"/../../cli/*.c
	[ "$status" -eq 1 ] || { echo "$output"; false; }
}
