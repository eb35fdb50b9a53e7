#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The units and the files `make install` puts in /etc, read on the host: netdev churn is a success
# status of rxe@.service, both units are sandboxed (systemd-analyze security, offline), and the
# memlock limits and module loading are scoped or opt-in (issues 14 and 16).
#   tests/run-all tests/host/units.bats

bats_require_minimum_version 1.5.0

TOP="$BATS_TEST_DIRNAME/../.."

setup_file() {
	export INST="$BATS_FILE_TMPDIR/root"
	make -C "$TOP" -s -o rxectl install DESTDIR="$INST" PREFIX=/usr SYSTEMDUNITDIR=/usr/lib/systemd/system \
		UDEVDIR=/usr/lib/udev WITH_SYSTEMDUNITS=yes >/dev/null
}

# The overall exposure systemd-analyze gives unit $1 (an instance name for the template).
exposure() {
	local dir="$BATS_TEST_TMPDIR/units"
	mkdir -p "$dir"
	cp "$INST/usr/lib/systemd/system/rxe-monitor.service" "$dir/"
	cp "$INST/usr/lib/systemd/system/rxe@.service" "$dir/rxe@eth0.service"
	(cd "$dir" && systemd-analyze security --offline=yes --no-pager "$1") |
		sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p'
}

@test "rxe@.service counts exit status 3 (netdev went away) and SIGTERM (stopped while starting) as success" {
	run -0 grep -x 'SuccessExitStatus=3 SIGTERM' "$INST/usr/lib/systemd/system/rxe@.service"
	# and nothing else: 1 and 2 (real failures) still fail the unit
	[ "$(grep -c '^SuccessExitStatus=' "$INST/usr/lib/systemd/system/rxe@.service")" = 1 ]
}

@test "rxe@.service is bound to and ordered after its netdev's device unit" {
	grep -qx 'BindsTo=sys-subsystem-net-devices-%i.device' "$INST/usr/lib/systemd/system/rxe@.service"
	grep -q '^After=sys-subsystem-net-devices-%i.device' "$INST/usr/lib/systemd/system/rxe@.service"
}

@test "rxe@.service is sandboxed: exposure below 3 (it was 9.5 unsandboxed)" {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	e=$(exposure rxe@eth0.service)
	echo "# systemd-analyze security --offline: rxe@eth0.service $e" >&3
	[ -n "$e" ]
	awk -v e="$e" 'BEGIN { exit !(e < 3) }'
}

@test "rxe-monitor.service is sandboxed: exposure below 3 (it was 9.5 unsandboxed)" {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	e=$(exposure rxe-monitor.service)
	echo "# systemd-analyze security --offline: rxe-monitor.service $e" >&3
	[ -n "$e" ]
	awk -v e="$e" 'BEGIN { exit !(e < 3) }'
}

@test "both units keep only CAP_NET_ADMIN and CAP_SYS_MODULE and only netlink and unix sockets" {
	for u in rxe@.service rxe-monitor.service; do
		grep -qx 'CapabilityBoundingSet=CAP_NET_ADMIN CAP_SYS_MODULE' "$INST/usr/lib/systemd/system/$u"
		grep -qx 'RestrictAddressFamilies=AF_NETLINK AF_UNIX' "$INST/usr/lib/systemd/system/$u"
		grep -qx 'ProtectSystem=strict' "$INST/usr/lib/systemd/system/$u"
		grep -qx 'NoNewPrivileges=yes' "$INST/usr/lib/systemd/system/$u"
	done
}

@test "install lifts the memlock limit for the group rdma only, not for every user" {
	f="$INST/etc/security/limits.d/50-rxe-memlock.conf"
	[ "$(grep -v '^#' "$f" | grep -c .)" = 2 ]
	grep -qP '^@rdma\tsoft\tmemlock\tunlimited$' "$f"
	grep -qP '^@rdma\thard\tmemlock\tunlimited$' "$f"
	! grep -q '^\*' "$f"
}

@test "install puts no drop-in for every service and loads no module at boot: both are opt-in files" {
	[ ! -e "$INST/etc/systemd/system/service.d" ]
	[ ! -e "$INST/etc/modules-load.d" ]
	grep -qx 'LimitMEMLOCK=infinity' "$INST/usr/share/rxectl/memlock.conf"
	grep -qx 'rdma_rxe' "$INST/usr/share/rxectl/modules-load.conf"
}
