#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl cdi and the container doctor on the build host (no RDMA kernel here): arguments, exit
# codes, messages, JSON, documentation. The spec's content is tests/unit/test_cdi.c's; real
# devices under podman are tests/guest/systemd/pkg_container.bats'.

bats_require_minimum_version 1.5.0

setup() {
	RXECTL="$BATS_TEST_DIRNAME/../../rxectl"
	MAN="$BATS_TEST_DIRNAME/../../man/rxectl.8"
	[ -x "$RXECTL" ] || skip "build rxectl first (make)"
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR/rxe.conf"
	: > "$RXECTL_CONFIG"
}

no_rdma_kernel() {
	[ ! -d /sys/module/ib_core ] && ! modinfo ib_core >/dev/null 2>&1
}

@test "--help lists cdi, and cdi --help its usage and --output's default" {
	run -0 "$RXECTL" --help
	[[ "$output" == *"  cdi "*"CDI spec"* ]]
	run -0 "$RXECTL" cdi --help
	[[ "$output" == "usage: rxectl cdi [--output DIR] [--json]"* ]]
	[[ "$output" == *"--output DIR"*"(default: /var/run/cdi)"* ]]
}

@test "cdi refuses arguments, a missing --output directory and a file as one, with exit 2" {
	run -2 "$RXECTL" cdi foo
	[[ "$output" == *"rxectl: cdi takes no arguments, but got 'foo'."* ]]
	run -2 "$RXECTL" cdi --output "$BATS_TEST_TMPDIR/none"
	[[ "$output" == *"rxectl: --output $BATS_TEST_TMPDIR/none: No such file or directory; give an existing directory."* ]]
	run -2 "$RXECTL" cdi --output "$RXECTL_CONFIG"
	[[ "$output" == *"rxectl: --output $RXECTL_CONFIG is not a directory."* ]]
	run -2 "$RXECTL" cdi --frob
	[[ "$output" == *"unknown option '--frob' for cdi"* ]]
}

@test "cdi without an RDMA kernel fails with the kernel's sentence, one JSON document, and writes nothing" {
	no_rdma_kernel || skip "this host has RDMA"
	run -1 "$RXECTL" cdi --output "$BATS_TEST_TMPDIR"
	[[ "$output" == *"has no RDMA support"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/rxectl.yaml" ]
	run -1 --separate-stderr "$RXECTL" cdi --json --output "$BATS_TEST_TMPDIR"
	jq -e '.error.exit_code == 1 and (.error.message | test("RDMA support"))' <<< "$output" >/dev/null
}

@test "doctor --host and --container exclude each other; doctor --help shows both" {
	run -2 "$RXECTL" doctor --host --container
	[[ "$output" == *"--host and --container exclude each other."* ]]
	run -0 "$RXECTL" doctor --help
	[[ "$output" == *"--host"*"--container"* ]]
}

@test "doctor --container: the container checks, no host checks, and each id documented in rxectl(8)" {
	no_rdma_kernel || skip "this host has RDMA"
	run -1 --separate-stderr "$RXECTL" doctor --container --json
	ids=$(jq -r '.checks[].id' <<< "$output" | paste -sd' ')
	[ "$ids" = "container kernel.rdma provider.rxe netns.mode device.present memlock.limit" ]
	[ "$(jq -r '.checks[] | select(.id == "device.present") | .status' <<< "$output")" = skip ]
	checks=$(sed -n '/^\.SS DOCTOR CHECKS/,/^\.S[HS] /p' "$MAN")
	for id in container devnode.rdma_cm netns.gid; do
		grep -q -- "$id" <<< "$checks" || { echo "$id is not in DOCTOR CHECKS"; false; }
	done
	# --host: the host's checks (modules, firewall) even inside a container
	run -1 --separate-stderr "$RXECTL" doctor --host --json
	jq -e '[.checks[].id] | index("module.rdma_rxe") and (index("container") | not)' <<< "$output" >/dev/null
}

@test "doctor --container: a small memlock limit without CAP_IPC_LOCK warns with the container flags" {
	[ "$(id -u)" = 0 ] || skip "needs root to become nobody"
	command -v setpriv >/dev/null || skip "needs setpriv"
	# an empty rxe.conf that nobody can read (a non-regular file such as /dev/null is refused)
	conf=$(mktemp /tmp/rxectl-cdi-conf.XXXXXX) && chmod 644 "$conf"
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		bash -c 'ulimit -l 64 && RXECTL_CONFIG="$1" exec "$0" doctor --container --json' "$RXECTL" "$conf"
	rm -f "$conf"
	c=$(jq -c '.checks[] | select(.id == "memlock.limit")' <<< "$output")
	[ "$(jq -r .status <<< "$c")" = warn ]
	[[ "$(jq -r .summary <<< "$c")" == *"64 KiB and it lacks CAP_IPC_LOCK"* ]]
	[[ "$(jq -r .fix <<< "$c")" == *"--ulimit memlock=-1:-1"*"--cap-add IPC_LOCK"*"securityContext.capabilities.add"* ]]
	# with CAP_IPC_LOCK (root) the same limit passes
	run --separate-stderr prlimit --memlock=65536:65536 "$RXECTL" doctor --container --json
	[ "$(jq -r '.checks[] | select(.id == "memlock.limit") | .status' <<< "$output")" = pass ]
}
