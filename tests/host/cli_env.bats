#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# `rxectl env` and `rxectl stats --prometheus` on the host: their usage errors (exit 2, before
# any device is looked at), their documentation, and rxe-prometheus.service/.timer as `make
# install` puts them. What they print about a device: tests/guest/pair/cli_env.bats and
# tests/guest/systemd/cli_prometheus.bats; the formats: tests/unit/test_env.c, test_prom.c.
#   tests/run-all tests/host/cli_env.bats

bats_require_minimum_version 1.5.0

TOP="$BATS_TEST_DIRNAME/../.."

setup() {
	RXECTL="$TOP/rxectl"
	[ -x "$RXECTL" ] || skip "build rxectl first (make)"
}

@test "env --for takes only the frameworks it knows" {
	run -2 --separate-stderr "$RXECTL" env --for mpi
	[ "${stderr_lines[0]}" = "rxectl: --for takes ucx, nccl, openmpi, libfabric, perftest, qperf, rping, ceph, spdk or all, not 'mpi'." ]
}

@test "env --shell and --json are refused together" {
	run -2 --separate-stderr "$RXECTL" env --shell --json
	[ "$(jq -r .error.message <<<"$output")" = "--shell and --json are two output formats; choose one." ]
}

@test "env --ibdev2netdev takes no device or --for; env takes one device at most" {
	run -2 --separate-stderr "$RXECTL" env --ibdev2netdev rxe0
	[ "${stderr_lines[0]}" = "rxectl: --ibdev2netdev lists every RDMA port and takes no device, --for or --shell." ]
	run -2 --separate-stderr "$RXECTL" env rxe0 rxe1
	[ "${stderr_lines[0]}" = "rxectl: env takes at most one DEVICE or NETDEV, but got 'rxe1' too." ]
}

@test "stats --output needs --prometheus; --prometheus takes neither --watch nor --json" {
	run -2 --separate-stderr "$RXECTL" stats --output /tmp/x.prom
	[ "${stderr_lines[0]}" = "rxectl: --output writes the --prometheus format; add --prometheus." ]
	run -2 --separate-stderr "$RXECTL" stats --prometheus --watch 1
	[ "${stderr_lines[0]}" = "rxectl: --prometheus is an output format of its own: it takes neither --watch nor --json." ]
	run -2 --separate-stderr "$RXECTL" stats --prometheus --json
	[ "$(jq -r .error.exit_code <<<"$output")" = 2 ]
}

@test "--help, env --help and the manual page document env and --prometheus" {
	run -0 "$RXECTL" --help
	[[ "$output" == *"  env "* ]]
	run -0 "$RXECTL" env --help
	[[ "$output" == *"--for FRAMEWORK"* && "$output" == *"--shell"* && "$output" == *"--ibdev2netdev"* ]]
	run -0 "$RXECTL" stats --help
	[[ "$output" == *"--prometheus"* && "$output" == *"--output FILE"* ]]
	grep -q '^\\fBenv\\fR' "$TOP/man/rxectl.8"
	grep -q 'prometheus' "$TOP/man/rxectl.8"
	grep -q 'rxe-prometheus.timer' "$TOP/man/rxectl.8"
	grep -q 'rxectl env' "$TOP/README.md"
}

@test "make install puts rxe-prometheus.service and .timer in place; the service writes the textfile directory only" {
	inst="$BATS_TEST_TMPDIR/root"
	make -C "$TOP" -s -o rxectl install DESTDIR="$inst" PREFIX=/usr SBINDIR=/usr/sbin \
		SYSTEMDUNITDIR=/usr/lib/systemd/system WITH_SYSTEMDUNITS=yes >/dev/null
	u="$inst/usr/lib/systemd/system"
	[ -f "$u/rxe-prometheus.timer" ]
	grep -qx 'ExecStart=/usr/sbin/rxectl stats --prometheus --output /var/lib/prometheus/node-exporter/rxe.prom' "$u/rxe-prometheus.service"
	grep -qx 'ReadWritePaths=/var/lib/prometheus/node-exporter' "$u/rxe-prometheus.service"
	grep -qx 'ConditionPathIsDirectory=/var/lib/prometheus/node-exporter' "$u/rxe-prometheus.service"
	grep -qx 'CapabilityBoundingSet=' "$u/rxe-prometheus.service"
	grep -qx 'OnUnitActiveSec=30s' "$u/rxe-prometheus.timer"
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	e=$(cd "$u" && systemd-analyze security --offline=yes --no-pager rxe-prometheus.service |
		sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
	echo "# systemd-analyze security --offline: rxe-prometheus.service $e" >&3
	awk -v e="$e" 'BEGIN { exit !(e < 2) }'
}

@test "completion: env is a command, --for completes the frameworks" {
	words() {
		bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _rxectl
			 printf "%s\n" "${COMPREPLY[@]}"' _ "$TOP/completion/rxectl.bash" "$@"
	}
	run -0 words "$RXECTL" env
	[ "$output" = env ]
	run -0 words "$RXECTL" env --for n
	[ "$output" = nccl ]
	run -0 words "$RXECTL" env --sh
	[ "$output" = --shell ]
}
