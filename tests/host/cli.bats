#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl on a host without an RDMA kernel: arguments, config errors, messages, exit codes.

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

@test "no command is a usage error that points to --help" {
	run -2 "$RXECTL"
	[[ "$output" == *"rxectl: no command given; run \`rxectl --help\`"* ]]
}

@test "--help lists every command of the table and exits 0" {
	run -0 "$RXECTL" --help
	[[ "$output" == *"  up "* ]]
	[[ "$output" == *"  down "* ]]
	[[ "$output" == *"  status "* ]]
	[[ "$output" == *"Exit status: 0 success, 1 the operation failed, 2 usage error"* ]]
}

@test "--help names every exit status rxectl(8) documents, and no other" {
	run -0 "$RXECTL" --help
	help=$(sed -n '/^Exit status:/,/^$/p' <<< "$output" | grep -o '\(^\|[:,] \|^\)[0-9] ' | tr -dc '0-9\n' | sort -u | tr '\n' ' ')
	man=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$BATS_TEST_DIRNAME/../../man/rxectl.8" |
		sed -n 's/^\.B \([0-9]\)$/\1/p' | sort -u | tr '\n' ' ')
	echo "--help: $help; rxectl(8): $man"
	[ -n "$man" ]
	[ "$help" = "$man" ]
}

@test "help COMMAND and COMMAND --help print its usage line" {
	run -0 "$RXECTL" help up
	[[ "$output" == "usage: rxectl up "* ]]
	run -0 "$RXECTL" status --help
	[[ "$output" == "usage: rxectl status"* ]]
}

@test "--version prints the version" {
	run -0 "$RXECTL" --version
	[[ "$output" == "rxectl "* ]]
}

@test "an unknown command is a usage error naming it" {
	run -2 "$RXECTL" frobnicate
	[ "$output" = "rxectl: unknown command 'frobnicate'; run \`rxectl --help\` for the list of commands." ]
}

@test "an unknown global option is a usage error naming it" {
	run -2 "$RXECTL" --frob status
	[[ "$output" == *"unknown option '--frob'"* ]]
}

@test "an unknown command option is a usage error with the command's usage" {
	run -2 "$RXECTL" status --frob
	[[ "$output" == *"rxectl: unknown option '--frob' for status; \`rxectl status --help\` lists its options."* ]]
	[[ "$output" == *"usage: rxectl status"* ]]
}

@test "up rejects a netdev name longer than 15 characters, naming it" {
	run -2 "$RXECTL" up abcdefghijklmnop
	[ "$output" = "rxectl: netdev name 'abcdefghijklmnop' is longer than 15 characters." ]
}

@test "up rejects a netdev name with a slash" {
	run -2 "$RXECTL" up 'a/b'
	[[ "$output" == *"netdev name 'a/b'"* ]]
}

@test "up rejects an invalid device name given with --name, naming it" {
	run -2 "$RXECTL" up lo --name 'bad%d'
	[[ "$output" == *"device name 'bad%d' may only contain"* ]]
}

@test "up --name without a netdev is a usage error" {
	run -2 "$RXECTL" up --name rxe0
	[[ "$output" == *"--name needs a NETDEV"* ]]
}

@test "up --wait takes whole seconds" {
	run -2 "$RXECTL" up lo --wait soon
	[[ "$output" == *"--wait needs a whole number of seconds"* ]]
	run -2 "$RXECTL" up lo --wait
	[[ "$output" == *"option --wait needs a value"* ]]
}

@test "up takes one netdev at most" {
	run -2 "$RXECTL" up lo eth0
	[[ "$output" == *"up takes at most one NETDEV, but also got 'eth0'"* ]]
}

@test "up on a netdev that does not exist exits 3 (the netdev is not there), naming it" {
	run -3 "$RXECTL" up nosuchdev0
	[ "$output" = "rxectl: netdev nosuchdev0 does not exist; check the name with \`ip link\`." ]
}

@test "up on a kernel without RDMA says so in one sentence, exit 1" {
	no_rdma_kernel || skip "this kernel has RDMA support"
	run -1 "$RXECTL" up lo
	[[ "$output" == "rxectl: kernel $(uname -r) has no RDMA support (no ib_core module, no RDMA netlink), so it cannot run rdma_rxe; boot a kernel built with CONFIG_INFINIBAND"* ]]
	[ "${#lines[@]}" -eq 1 ]
}

@test "status on a kernel without RDMA netlink gives the documented sentence, exit 1" {
	no_rdma_kernel || skip "this kernel has RDMA support"
	run -1 --separate-stderr "$RXECTL" status
	[ -z "$output" ]
	[[ "$stderr" == "rxectl: kernel $(uname -r) has no RDMA support (no ib_core module, no RDMA netlink)"* ]]
}

@test "status --json on a kernel without RDMA prints only the error document" {
	no_rdma_kernel || skip "this kernel has RDMA support"
	run -1 --separate-stderr "$RXECTL" status --json
	[ "$(jq -c 'keys' <<< "$output")" = '["error"]' ]
	[[ "$(jq -r .error.message <<< "$output")" == *"has no RDMA support"* ]]
}

@test "down on a kernel without RDMA gives the same sentence, exit 1" {
	no_rdma_kernel || skip "this kernel has RDMA support"
	run -1 "$RXECTL" down lo
	[[ "$output" == *"has no RDMA support"* ]]
}

@test "down needs a target" {
	run -2 "$RXECTL" down
	[[ "$output" == *"say which device to delete: a NETDEV, a DEVICE, or --all."* ]]
}

@test "down refuses both --all and a name" {
	run -2 "$RXECTL" down --all lo
	[[ "$output" == *"give either --all or one NETDEV or DEVICE, not both."* ]]
}

@test "down rejects a name valid as neither netdev nor device" {
	run -2 "$RXECTL" down 'a b'
	[[ "$output" == *"'a b' is neither a valid netdev name"* ]]
}

@test "status takes no arguments" {
	run -2 "$RXECTL" status eth0
	[[ "$output" == *"status takes no arguments, but got 'eth0'."* ]]
}

@test "a malformed config file is reported with file and line, exit 2" {
	printf '[lo]\nname = rxe_lo\nthis is not a key\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" up
	[ "$output" = "rxectl: $RXECTL_CONFIG:3: this line is neither a [NETDEV] section header nor a 'key = value' pair; see rxe.conf(5)." ]
}

@test "a malformed config file stops status before it looks at the kernel" {
	printf '[lo]\nbogus\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" status
	[[ "$output" == "rxectl: $RXECTL_CONFIG:2: "* ]]
	[ "${#lines[@]}" -eq 1 ]
}

@test "a malformed config file stops up NETDEV too (nothing is changed)" {
	printf '[lo]\nbogus\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" up nosuchdev0
	[[ "$output" == "rxectl: $RXECTL_CONFIG:2: "* ]]
}

@test "an unknown key is an error naming the key and line" {
	printf '[lo]\n\nspeed = 9000\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" up
	[ "$output" = "rxectl: $RXECTL_CONFIG:3: unknown key 'speed' in [lo]; a netdev section knows 'name' and 'mtu' (rxe.conf(5))." ]
}

@test "a bad netdev name in a section header is an error naming it" {
	printf '[eth0]\n[much-too-long-netdev]\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" up
	[[ "$output" == "rxectl: $RXECTL_CONFIG:2: section [much-too-long-netdev]: netdev name 'much-too-long-netdev' is longer than 15 characters." ]]
}

@test "a bad device name in the file is an error naming it" {
	printf '[eth0]\nname = rxe 0\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" up
	[[ "$output" == "rxectl: $RXECTL_CONFIG:2: in [eth0], name 'rxe 0' may only contain"* ]]
}

@test "-c overrides \$RXECTL_CONFIG" {
	printf '[lo]\nbogus\n' > "$BATS_TEST_TMPDIR/other.conf"
	run -2 "$RXECTL" -c "$BATS_TEST_TMPDIR/other.conf" up
	[[ "$output" == "rxectl: $BATS_TEST_TMPDIR/other.conf:2: "* ]]
}

@test "a config file named with -c that does not exist is an error, exit 2" {
	run -2 "$RXECTL" -c "$BATS_TEST_TMPDIR/nope.conf" up
	[ "$output" = "rxectl: the configuration file $BATS_TEST_TMPDIR/nope.conf does not exist; check the path given with -c or \$RXECTL_CONFIG." ]
}

@test "up with an empty config file has nothing to do, exit 0" {
	printf '# nothing yet\n' > "$RXECTL_CONFIG"
	run -0 "$RXECTL" up
	[[ "$output" == "rxectl: $RXECTL_CONFIG declares no netdevs; nothing to bring up." ]]
}

@test "up with every configured netdev absent exits 3, naming each" {
	printf '[nosuchdev0]\n[nosuchdev1]\n' > "$RXECTL_CONFIG"
	run -3 "$RXECTL" up
	[[ "$output" == *"netdev nosuchdev0 does not exist"* ]]
	[[ "$output" == *"netdev nosuchdev1 does not exist"* ]]
}

@test "the example configuration file parses" {
	cp "$BATS_TEST_DIRNAME/../../etc/rxe.conf" "$RXECTL_CONFIG"
	run "$RXECTL" up
	[[ "$output" != *"$RXECTL_CONFIG:"* ]]
	[ "$status" -ne 2 ]
}

@test "every message starts with 'rxectl: '" {
	run "$RXECTL" up nosuchdev0
	[[ "$output" == "rxectl: "* ]]
	run "$RXECTL" down
	[[ "${lines[0]}" == "rxectl: "* ]]
}

@test "a config value with terminal escapes is printed with them escaped" {
	printf '[lo]\nname = a\033[31mred\007\n' > "$RXECTL_CONFIG"
	run -2 --separate-stderr "$RXECTL" status
	[[ "$stderr" == *"name 'a\\x1b[31mred\\x07' may only contain"* ]]
	! grep -q $'\033' <<< "$stderr"
}

@test "everything rxectl prints goes through output.c or log.c, which escape control characters" {
	# help text (commands.c, opts.c) and the --version line are rxectl's own words
	run grep -n -E '\b(printf|puts|vprintf)\(|\bf(printf|puts|write)\((stdout|stderr)' \
		"$BATS_TEST_DIRNAME"/../../cli/*.c
	grep -v -E '/(output|log|commands|opts|escape)\.c:|/rxectl\.c:[0-9]+:.*RXECTL_VERSION' \
		<<< "$output" > "$BATS_TEST_TMPDIR/raw" || true
	[ ! -s "$BATS_TEST_TMPDIR/raw" ] || { cat "$BATS_TEST_TMPDIR/raw"; false; }
}

@test "every socket rxectl opens is close-on-exec (no fd leaks into the tools it runs)" {
	# socket(2) and libmnl's opener; libnl's nl_connect() and librdmacm set it themselves
	run grep -n -E '\bsocket\(|mnl_socket_open2?\(' "$BATS_TEST_DIRNAME"/../../cli/*.c
	[ "$status" -eq 0 ]
	grep -v -E 'SOCK_CLOEXEC|SFD_CLOEXEC' <<< "$output" > "$BATS_TEST_TMPDIR/open" || true
	[ ! -s "$BATS_TEST_TMPDIR/open" ] || { cat "$BATS_TEST_TMPDIR/open"; false; }
}

@test "no tool is run through a shell (no popen or system in cli/)" {
	run grep -n -E '\b(popen|system)\(' "$BATS_TEST_DIRNAME"/../../cli/*.c
	[ "$status" -eq 1 ]
}

@test "one firewall module: only firewall.c runs nft and iptables-save, doctor and ping ask it" {
	run grep -l -E '"nft"|iptables-legacy-save|fw_analyze_' "$BATS_TEST_DIRNAME"/../../cli/*.c
	[ "$(xargs -n1 basename <<< "$output" | sort | tr '\n' ' ')" = "firewall.c firewall_nft.c " ]
	grep -q 'firewall_inspect(' "$BATS_TEST_DIRNAME"/../../cli/doctor_firewall.c
	grep -q 'firewall_inspect(' "$BATS_TEST_DIRNAME"/../../cli/ping_client.c
}

# cli/*.c with their comments left out, one file name per line: the files whose code matches $1.
code_matching() {
	for f in "$BATS_TEST_DIRNAME"/../../cli/*.c; do
		sed -e 's:/\*.*\*/::g' -e 's://.*::' -e '/^[[:space:]]*\*/d' "$f" | grep -q -E "$1" &&
			echo "${f##*/}"
	done | tr '\n' ' '
}

@test "every outside system has one module: sd-bus, rtnetlink and RDMA netlink; the shared handles are set in ctx.c" {
	# the doctor once opened its own sd-bus connection and wrote ctx->rnl itself
	[ "$(code_matching 'sd_bus_')" = "sdbus.c " ]
	[ "$(code_matching 'NETLINK_ROUTE|nl_socket_alloc')" = "netdev.c " ]
	[ "$(code_matching 'NETLINK_RDMA')" = "rdma_nl.c " ]
	[ "$(code_matching 'ctx->(rnl|nd|conf) *=[^=]|&ctx->(rnl|nd)\b')" = "ctx.c " ]
}

@test "libkmod has one adapter, kmod.c, and it decides nothing about rdma_rxe (driver.c does)" {
	[ "$(code_matching 'kmod_|libkmod\.h')" = "kmod.c " ]
	run grep -n 'rxe\|bundled\|in-tree' "$BATS_TEST_DIRNAME"/../../cli/kmod.c \
		"$BATS_TEST_DIRNAME"/../../cli/kmod.h
	echo "$output"
	[ "$status" -eq 1 ]
}

@test "the tune.state record has one owner: only tune_state.c names it, writes, reads or reverts it" {
	# tune.c and tune_persist.c each wrote the other's records, and tune.c reverted both
	[ "$(code_matching 'TUNE_STATE\b|tune\.state')" = "tune_state.c " ]
	[ "$(code_matching 'TUNE_CONF_PREFIX|"rxe\.conf:')" = "tune_state.c " ]
	[ "$(code_matching '^int tune_revert|^int tune_state_')" = "tune_state.c " ]
}

@test "no command calls another command's function: shared work lives one layer down" {
	# cmd_X() is called only from the command table (commands.c), never from another file
	run grep -n -E '\bcmd_[a-z_]+\(|run_cmd\(|optind' "$BATS_TEST_DIRNAME"/../../cli/*.c
	echo "$output" | grep -v -E '^[^:]*/commands\.c:|^[^:]*:[0-9]+:int cmd_[a-z_]+\(struct rxectl' \
		> "$BATS_TEST_TMPDIR/calls" || true
	[ ! -s "$BATS_TEST_TMPDIR/calls" ] || { cat "$BATS_TEST_TMPDIR/calls"; false; }
}

@test "one home for small helpers: ARRAY_SIZE, the monotonic clock and the bundled driver's version prefix live in util.h only" {
	for f in "$BATS_TEST_DIRNAME"/../../cli/*.[ch]; do
		[ "${f##*/}" = util.h ] && continue
		# code only: one-line comments and comment lines left out
		sed -e 's:/\*.*\*/::g' -e 's://.*::' -e '/^[[:space:]]*\*/d' "$f" |
			grep -n -E 'sizeof\(([a-z_]+)\) */ *sizeof\(\1\[0\]\)|"rxectl-bundled|CLOCK_MONOTONIC' |
			sed "s|^|${f##*/}:|"
	done > "$BATS_TEST_TMPDIR/copies"
	[ ! -s "$BATS_TEST_TMPDIR/copies" ] || { cat "$BATS_TEST_TMPDIR/copies"; false; }
}

@test "no cli/*.c or *.h grows past 700 lines (one concern a reader can hold), no exception" {
	big=$(wc -l "$BATS_TEST_DIRNAME"/../../cli/*.[ch] | awk '$2 != "total" && $1 > 700 {print $2}')
	[ -z "$big" ] || { echo "too long: $big"; false; }
}
